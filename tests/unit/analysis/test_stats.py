"""The statistics against known values: t quantiles and CDF, digamma and trigamma (reference values
from scipy 1.17), Welch's test on Wikipedia's two worked examples, the prediction test, Holm's
correction, the pooled (moderated) noise on synthetic data of known truth, and sample sizes."""

import math
import random
import statistics

import pytest

from labtui.analysis import stats

# scipy.stats.t.ppf(p, df) for p = 0.975, 0.995, 0.95
T_TABLE = {
    1: (12.706204736174694, 63.656741162871526, 6.313751514675037),
    2: (4.302652729749462, 9.924843200918287, 2.9199855803537242),
    3: (3.1824463052837078, 5.840909309733355, 2.3533634348018233),
    5: (2.5705818356363146, 4.032142983555228, 2.0150483733330233),
    10: (2.228138851986274, 3.16927267261695, 1.8124611228116756),
    30: (2.0422724563012378, 2.7499956535672254, 1.697260886593957),
    120: (1.9799304050824402, 2.6174211451068654, 1.6576508993552352),
    2.5: (3.5746548420036817, 7.163728138948783, 2.5582186141359355),
    7.3: (2.345066736547703, 3.451031655622185, 1.8829300179564308),
}


@pytest.mark.parametrize("df", sorted(T_TABLE))
def test_t_quantile_matches_reference_values(df):
    for p, expected in zip((0.975, 0.995, 0.95), T_TABLE[df]):
        assert stats.t_quantile(p, df) == pytest.approx(expected, rel=1e-9)
        assert stats.t_quantile(1 - p, df) == pytest.approx(-expected, rel=1e-9)


@pytest.mark.parametrize("p", [0.6, 0.8, 0.9, 0.99, 0.9999])
def test_t_quantile_matches_closed_forms_for_one_and_two_df(p):
    assert stats.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-9)
    assert stats.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-9)


def test_t_quantile_tends_to_the_normal_and_rejects_nonsense():
    assert stats.t_quantile(0.975, math.inf) == pytest.approx(1.959963984540054)
    assert stats.t_quantile(0.975, 1e6) == pytest.approx(1.959963984540054, rel=1e-5)
    assert stats.t_quantile(0.5, 3) == 0.0
    for bad in ((0.0, 3), (1.0, 3), (0.5, 0), (0.9, -1)):
        with pytest.raises(ValueError):
            stats.t_quantile(*bad)


def test_t_cdf_matches_reference_values():
    assert stats.t_cdf(2.0, 4) == pytest.approx(0.9419417382415922, rel=1e-12)
    assert stats.t_cdf(-1.5, 3.7) == pytest.approx(0.10679908460100675, rel=1e-10)
    assert 1 - stats.t_cdf(4.0, 1.3) == pytest.approx(0.055200618333159285, rel=1e-9)
    assert stats.t_cdf(0.0, 5) == pytest.approx(0.5)


def _se2(values):
    return statistics.variance(values) / len(values)


def test_welch_matches_the_worked_examples():
    # Wikipedia, "Welch's t-test", examples 1 and 2 (t, df, p also checked against scipy).
    a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    b1 = [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8]
    b2 = [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
          20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8]
    for x, y, t, df, p in ((a1, a2, -2.455356398286006, 24.988529290231416, 0.021378001462866992),
                           (b1, b2, -1.5654335235985037, 9.904741248650831, 0.14884169660532817)):
        # the statistic of x - y, as scipy's ttest_ind(x, y)
        result = stats.welch(statistics.fmean(y), _se2(y), len(y) - 1, statistics.fmean(x), _se2(x), len(x) - 1)
        assert result.statistic == pytest.approx(t, rel=1e-9)
        assert result.df == pytest.approx(df, rel=1e-9)
        assert result.p_value == pytest.approx(p, rel=1e-8)
        assert result.p_lower() == pytest.approx(p / 2, rel=1e-8)  # x is lower: half the two-sided p
        assert result.p_higher() == pytest.approx(1 - p / 2, rel=1e-8)


def test_repetition_spread_and_confidence_interval():
    spread = stats.spread_of_repetitions([10.0, 12.0, 14.0])
    assert (spread.n, spread.mean, spread.stdev, spread.df) == (3, 12.0, 2.0, 2.0)
    low, high = spread.interval()
    half = 4.302652729749462 * 2.0 / math.sqrt(3)
    assert (low, high) == (pytest.approx(12 - half), pytest.approx(12 + half))
    assert stats.spread_of_repetitions([5.0]) is None


def test_identical_values_test_as_no_difference_and_constant_shift_as_certain():
    same = stats.noise_of([math.log(7.0)] * 3)
    assert stats.welch_of([math.log(7.0)] * 3, same, [math.log(7.0)] * 3, same).p_value == 1.0
    shifted = stats.welch_of([math.log(7.0)] * 3, same, [math.log(8.0)] * 3, same)
    assert shifted.p_value == 0.0 and shifted.p_higher() == 0.0 and shifted.p_lower() == 1.0


def test_single_run_against_repetitions_is_a_prediction_interval_test():
    logs = [math.log(v) for v in (100.0, 102.0, 98.0, 101.0, 99.0)]
    noise = stats.noise_of(logs)
    s = statistics.stdev(logs)
    result = stats.prediction(math.log(95.0), logs, noise)
    # t = (x - mean) / (s * sqrt(1 + 1/n)) with n - 1 df
    assert result.statistic == pytest.approx((math.log(95.0) - statistics.fmean(logs)) / (s * math.sqrt(1.2)))
    assert result.df == 4 and result.method == "prediction"
    assert result.p_value == pytest.approx(2 * stats.t_cdf(result.statistic, 4))
    assert stats.noise_of(logs[:1]) is None  # one run says nothing about run-to-run noise


def test_digamma_and_trigamma_match_reference_values():
    # scipy.special.digamma / polygamma(1, x)
    for x, psi, psi1 in ((0.3, -3.502524222200133, 12.245364546107734), (1.0, -0.5772156649015329, 1.6449340668482266),
                         (2.5, 0.7031566406452432, 0.4903577561002349), (40.0, 3.6763273740348428, 0.025315103841291032)):
        assert stats.digamma(x) == pytest.approx(psi, rel=1e-10)
        assert stats.trigamma(x) == pytest.approx(psi1, rel=1e-10)
        assert stats.trigamma_inverse(psi1) == pytest.approx(x, rel=1e-9)


def test_holm_matches_the_step_down_definition():
    assert stats.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert stats.holm([0.5, 0.5]) == [1.0, 1.0] and stats.holm([]) == []


def _logs(rng, sd, n):
    return [rng.gauss(0.0, sd) for _ in range(n)]


def test_pooled_noise_recovers_a_shared_noise_and_holds_its_error_rate():
    rng = random.Random(11)
    # Eight steps with the same 5 % noise, three runs each: pooling gives each step ~16 df.
    prior = stats.noise_prior([(statistics.variance(_logs(rng, 0.05, 3)), 2.0) for _ in range(8)])
    assert prior.df > 6 and 0.02 < math.sqrt(prior.variance) < 0.09
    # Nothing changed, steps whose noise differs by up to 4 times: a 5 % test rejects about 5 % of the time.
    rejected = tests = 0
    for _ in range(400):
        sds = [0.05 * 2 ** rng.uniform(-1, 1) for _ in range(6)]
        a = [_logs(rng, sd, 3) for sd in sds]
        b = [_logs(rng, sd, 3) for sd in sds]
        pa = stats.noise_prior([(statistics.variance(x), 2.0) for x in a])
        pb = stats.noise_prior([(statistics.variance(x), 2.0) for x in b])
        for x, y in zip(a, b):
            result = stats.welch_of(x, stats.noise_of(x, pa), y, stats.noise_of(y, pb))
            rejected += result.p_value < 0.05
            tests += 1
    assert 0.02 < rejected / tests < 0.07


def test_a_steps_noise_is_never_moderated_below_its_own():
    prior = stats.Prior(variance=1e-4, df=math.inf, steps=8, total_df=16)
    loud = stats.noise_of([0.0, 0.3, -0.3], prior)
    assert loud.variance == pytest.approx(loud.own) and loud.df == 2  # its own variance, its own freedom
    quiet = stats.noise_of([0.0, 0.001, -0.001], prior)
    assert quiet.variance == pytest.approx(1e-4) and quiet.pooled_steps == 8


def test_steadiness_is_the_coefficient_of_variation_of_the_intervals():
    assert stats.steadiness([90.0, 100.0, 110.0]) == pytest.approx(0.1)
    assert stats.steadiness([5.0, 5.0]) is None  # too few intervals to say


def test_runs_needed_follows_the_textbook_sample_size():
    # Two-sample, two-sided 5 %, 80 % power: n = 2 (z + z)^2 (s / d)^2 ~ 16 (s / d)^2, plus t's penalty;
    # the exact power (scipy's noncentral t) of 5 runs each at 5 % noise is 0.83, of 4 runs 0.70.
    assert stats.runs_needed(0.05, 0.10) == 5
    assert stats.runs_needed(0.10, 0.10) == 16
    assert stats.runs_needed(0.01, 0.10) == 2
    assert stats.runs_needed(0.05, 0.10, fixed=1) is None  # a single-run side can never be outweighed
    assert stats.runs_needed(0.03, 0.10, fixed=3, alpha=0.005, one_sided=True) >= 3
