"""The steady-state criteria on known series, each against a hand calculation.

SNIA PTS 2.0 over the last 5 rounds: range = max - min <= 20 % of the mean, and the best-fit line's
excursion |slope| x 4 <= 10 % of the mean. With x = 0..4 (mean 2) the least-squares slope is
sum((x - 2) * (y - mean)) / 10.
"""

import pytest

from labtui.analysis import steady
from labtui.errors import ValidationError
from labtui.model.profile import MIB, SteadyRule
from labtui.results.profile_file import step_from_table, step_to_table

SNIA = SteadyRule.parse("snia")


def criteria(state):
    return {c.name: (c.value, c.held) for c in state.criteria}


def test_a_steady_series_holds_both_criteria():
    # mean 100; range 102 - 98 = 4 -> 4 %; slope (0 - 2 + 0 + 1 - 2) / 10 = -0.3, excursion 1.2 -> 1.2 %
    state = steady.judge(SNIA, [100, 102, 98, 101, 99], 60.0)
    assert state.attained
    assert state.mean == pytest.approx(100.0)
    assert state.slope == pytest.approx(-0.3)
    assert criteria(state) == {"range": (pytest.approx(4.0), True), "excursion": (pytest.approx(1.2), True)}
    assert state.window_start == 1 and state.window_figures == (100, 102, 98, 101, 99)
    assert state.verdict == "steady after 5 rounds"


def test_a_drifting_series_passes_the_range_but_fails_the_slope():
    # mean 108; range 16 -> 14.81 % (holds); slope 4, excursion 16 -> 14.81 % > 10 % (fails)
    state = steady.judge(SNIA, [100, 104, 108, 112, 116], 1.0)
    assert not state.attained
    assert state.slope == pytest.approx(4.0)
    assert criteria(state) == {"range": (pytest.approx(1600 / 108), True),
                               "excursion": (pytest.approx(1600 / 108), False)}


def test_an_oscillating_series_has_no_slope_but_fails_the_range():
    # mean 112; range 30 -> 26.79 % (fails); deviations -12 18 -12 18 -12: slope (24 - 18 + 18 - 24) / 10 = 0
    state = steady.judge(SNIA, [100, 130, 100, 130, 100], 1.0)
    assert not state.attained
    assert state.slope == pytest.approx(0.0, abs=1e-12)
    assert criteria(state) == {"range": (pytest.approx(3000 / 112), False), "excursion": (pytest.approx(0.0, abs=1e-9), True)}


def test_too_few_rounds_judge_nothing():
    state = steady.judge(SNIA, [100, 100, 100, 100], 1.0)
    assert not state.attained and not state.finished
    assert state.criteria == () and state.window_start is None and state.mean is None
    assert state.rounds == (100, 100, 100, 100)
    assert state.verdict == "not steady after 4 rounds"


def test_the_window_is_the_last_five_rounds_and_bounds_are_inclusive():
    # The first round (a fresh drive's cache) is outside the window; 90..110 around 100 is exactly 20 %.
    # slope: deviations -10 10 0 0 0 -> (20 - 10) / 10 = 1, excursion 4 -> 4 %
    state = steady.judge(SNIA, [300, 90, 110, 100, 100, 100], 1.0)
    assert state.attained and state.window_start == 2
    assert criteria(state) == {"range": (20.0, True), "excursion": (pytest.approx(4.0), True)}


def test_the_round_limit_ends_a_never_steady_series_and_says_so():
    series = [100 if i % 2 else 150 for i in range(25)]
    state = steady.judge(SNIA, series, 1.0)
    assert not state.attained and state.finished
    assert state.verdict == "not steady after 25 rounds"
    assert not steady.judge(SNIA, series[:24], 1.0).finished


def test_fio_slope_criterion_in_percent_of_the_mean():
    # fio's own numbers (fio 3.33, iops_slope:50% over 3 s): slope (14114 - 8145) / 2 = 2984.5,
    # 100 x 2984.5 / 11569.67 = 25.80 % < 50 % (fio divides the integer sum: 25.797390 %)
    rule = SteadyRule.parse("iops_slope:50%", window=3)
    state = steady.judge(rule, [8145, 12450, 14114], 1.0)
    assert state.attained
    assert criteria(state) == {"slope": (pytest.approx(100 * 2984.5 / (34709 / 3)), True)}
    assert steady.judge(SteadyRule.parse("iops_slope:25%", window=3), [8145, 12450, 14114], 1.0).attained is False


def test_fio_deviation_criterion_absolute_and_in_percent():
    # mean 1000; the largest |x - mean| is 30 (970): 3 % of the mean, 30 IOPS absolute; fio's test is strict
    figures = [1000, 1010, 970, 1020, 1000]
    assert criteria(steady.judge(SteadyRule.parse("iops:3.5%"), figures, 1.0)) == {"deviation": (pytest.approx(3.0), True)}
    assert criteria(steady.judge(SteadyRule.parse("iops:3%"), figures, 1.0)) == {"deviation": (pytest.approx(3.0), False)}
    assert criteria(steady.judge(SteadyRule.parse("iops:31"), figures, 1.0)) == {"deviation": (pytest.approx(30.0), True)}


def test_fio_bandwidth_limits_without_percent_are_bytes_per_second():
    # MiB/s rounds 100, 100.5, 99.5: the largest deviation 0.5 MiB/s = 524288 bytes/s, below fio's bw:1048576
    state = steady.judge(SteadyRule.parse("bw:1048576", window=3), [100, 100.5, 99.5], 1.0)
    assert criteria(state) == {"deviation": (pytest.approx(0.5 * MIB), True)}


def test_latency_criteria_apply_fios_tests_to_the_mean_latency():
    # ms 2.0 2.1 2.2 2.3 2.4: slope 0.1 ms per round over a mean of 2.2 = 4.55 %
    state = steady.judge(SteadyRule.parse("lat_slope:5%"), [2.0, 2.1, 2.2, 2.3, 2.4], 1.0)
    assert state.figure == "latency" and state.attained
    assert criteria(state) == {"slope": (pytest.approx(10 / 2.2), True)}
    snia = steady.judge(SteadyRule.parse("snia:latency"), [2.0, 2.1, 2.2, 2.3, 2.4], 1.0)
    # range 0.4 -> 18.2 % holds; excursion 0.4 -> 18.2 % fails
    assert criteria(snia) == {"range": (pytest.approx(40 / 2.2), True), "excursion": (pytest.approx(40 / 2.2), False)}


def test_a_window_without_io_is_never_steady():
    state = steady.judge(SNIA, [0, 0, 0, 0, 0], 1.0)
    assert not state.attained
    assert criteria(state) == {"range": (None, False), "excursion": (None, False)}


def test_best_fit_matches_the_closed_form():
    slope, intercept = steady.best_fit([3.0, 5.0, 7.0])
    assert (slope, intercept) == (pytest.approx(2.0), pytest.approx(3.0))
    with pytest.raises(ValueError):
        steady.best_fit([1.0])


def test_criterion_text_says_how_far_from_holding():
    state = steady.judge(SNIA, [100, 104, 108, 112, 116], 1.0)
    texts = [steady.criterion_text(c, state.figure) for c in state.criteria]
    assert texts[0] == "range 14.8 % of the rounds' mean (at most 20 %): holds"
    assert texts[1] == "best-fit excursion 14.8 % of the rounds' mean (at most 10 %): 4.81 % over"


@pytest.mark.parametrize(("text", "window", "rounds", "message"), [
    ("bogus", 5, 25, "steady_state must be 'snia'"),
    ("iops", 5, 25, "iops needs a limit"),
    ("iops_slope:-1%", 5, 25, "0 or more"),
    ("snia:temperature", 5, 25, "tracks iops, mib_s or latency"),
    ("snia", 4, 25, "window of 5 rounds"),
    ("iops:1%", 1, 25, "the window must be 2.."),
    ("iops:1%", 5, 4, "at least the window"),
])
def test_bad_rules_are_refused_with_the_reason(text, window, rounds, message):
    with pytest.raises(ValidationError, match=message):
        SteadyRule.parse(text, window=window, max_rounds=rounds)


def test_rules_read_back_as_written():
    for text in ("snia", "snia:mib_s", "snia:latency", "iops_slope:0.1%", "bw:1048576", "lat:5%"):
        assert SteadyRule.parse(text).text == text
    step = step_from_table({"name": "s", "steady_state": "snia:mib_s", "duration": "60s"})
    assert step_from_table(step_to_table(step)) == step
    assert step.planned_seconds == 2 + 25 * 60
    with pytest.raises(ValidationError, match="needs latency = true"):
        step_from_table({"name": "s", "steady_state": "lat:5%", "latency": False})
    with pytest.raises(ValidationError, match="does not apply"):
        step_from_table({"name": "s", "kind": "command", "command": "true", "steady_state": "snia"})
