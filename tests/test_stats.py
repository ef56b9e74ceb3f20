"""The statistics against known values: t quantiles and CDF (reference values from scipy 1.17),
Welch's test on Wikipedia's two worked examples, and the within-run AR(1) correction."""

import math
import random

import pytest

from labtui import stats

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


def test_welch_matches_the_worked_examples():
    # Wikipedia, "Welch's t-test", examples 1 and 2 (t, df, p also checked against scipy).
    a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    b1 = [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8]
    b2 = [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
          20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8]
    for x, y, t, df, p in ((a1, a2, -2.455356398286006, 24.988529290231416, 0.021378001462866992),
                           (b1, b2, -1.5654335235985037, 9.904741248650831, 0.14884169660532817)):
        sx, sy = stats.spread_of_repetitions(y), stats.spread_of_repetitions(x)
        result = stats.welch(sx.mean, sx, sy.mean, sy)  # statistic of x - y, as scipy's ttest_ind(x, y)
        assert result.statistic == pytest.approx(t, rel=1e-9)
        assert result.df == pytest.approx(df, rel=1e-9)
        assert result.p_value == pytest.approx(p, rel=1e-8)


def test_repetition_spread_and_confidence_interval():
    spread = stats.spread_of_repetitions([10.0, 12.0, 14.0])
    assert (spread.n, spread.mean, spread.stdev, spread.df) == (3, 12.0, 2.0, 2.0)
    low, high = spread.interval()
    half = 4.302652729749462 * 2.0 / math.sqrt(3)
    assert (low, high) == (pytest.approx(12 - half), pytest.approx(12 + half))
    assert stats.spread_of_repetitions([5.0]) is None


def test_identical_values_test_as_no_difference_and_constant_shift_as_certain():
    same = stats.spread_of_repetitions([7.0, 7.0, 7.0])
    assert stats.welch(7.0, same, 7.0, same).p_value == 1.0
    assert stats.welch(7.0, same, 8.0, same).p_value == 0.0


def test_single_run_against_repetitions_is_a_prediction_interval_test():
    reps = stats.spread_of_repetitions([100.0, 102.0, 98.0, 101.0, 99.0])
    # t = (mean - x) / (s * sqrt(1 + 1/n)) with n - 1 df
    s = reps.stdev
    result = stats.single_against(95.0, reps)
    assert result.statistic == pytest.approx(5.0 / (s * math.sqrt(1.2)))
    assert result.df == 4
    assert result.p_value == pytest.approx(2 * (1 - stats.t_cdf(result.statistic, 4)))


def test_interval_spread_needs_enough_samples_and_caps_autocorrelation():
    assert stats.spread_of_intervals([1.0, 2.0, 3.0, 4.0]) is None
    constant = stats.spread_of_intervals([5.0] * 10)
    assert constant.stderr == 0 and constant.autocorrelation == 0
    alternating = stats.spread_of_intervals([1.0, 3.0] * 10)
    assert alternating.autocorrelation == 0.0  # negative correlation is not allowed to shrink the error
    trend = stats.spread_of_intervals([float(i) for i in range(100)])
    assert trend.autocorrelation == stats.MAX_AUTOCORRELATION


def _ar1(rng, n, phi):
    x, out = 0.0, []
    for _ in range(n):
        x = phi * x + rng.gauss(0, 1)
        out.append(x)
    return out


def test_ar1_correction_estimates_the_autocorrelation_and_keeps_coverage():
    rng = random.Random(7)
    long = stats.spread_of_intervals(_ar1(rng, 5000, 0.6))
    assert long.autocorrelation == pytest.approx(0.6, abs=0.05)
    # 95 % intervals of strongly autocorrelated series: the correction keeps coverage near 95 %,
    # where the naive s / sqrt(n) would cover the true mean (0) far less often.
    covered = naive = 0
    runs = 400
    for _ in range(runs):
        series = _ar1(rng, 60, 0.6)
        spread = stats.spread_of_intervals(series)
        low, high = spread.interval()
        covered += low <= 0 <= high
        half = stats.t_critical(59) * spread.stdev / math.sqrt(60)
        naive += spread.mean - half <= 0 <= spread.mean + half
    assert covered / runs >= 0.88
    assert naive / runs < 0.8
