"""What comparisons and check say of the drive: synthetic results of known truth (equal figures, another link,
PCIe errors, a hotter drive that throttled)."""

from __future__ import annotations

from dataclasses import replace

from factories import make_result
from labtui.analysis.answer import check_answer, first_lines
from labtui.analysis.checks import FAILED, check
from labtui.analysis.comparison import compare
from labtui.analysis.context import context_rows
from labtui.model.result import DriveFacts, RunResult


def with_drive(result: RunResult, before: DriveFacts, after: DriveFacts) -> RunResult:
    return replace(result, steps=tuple(replace(s, drive_before=before, drive_after=after) for s in result.steps))


def test_check_fails_on_a_link_that_trained_slower_at_equal_iops():
    baseline = make_result("20240501-103005-aaaa")
    narrowed = make_result("20240501-113005-bbbb", target=replace(baseline.target, pcie_width=2))
    report = check(baseline, narrowed, 10.0)
    assert report.outcome == FAILED
    assert report.hardware == ("the PCIe link came up at 8 GT/s x2, slower than the baseline's 8 GT/s x4",)
    assert report.summary().startswith("FAIL: the PCIe link came up at 8 GT/s x2")
    answer = check_answer(report)
    assert answer.text.startswith("Failed: the PCIe link came up at 8 GT/s x2, slower than the baseline's 8 GT/s x4, "
                                  "whatever the figures")
    assert report.to_json()["hardware"] == list(report.hardware)
    # A link that narrowed during the run counts as well as one that came up narrow.
    during = make_result("20240501-113005-cccc")
    during = with_drive(during, DriveFacts(source="sysfs", pcie_speed="8.0 GT/s PCIe", pcie_width=4),
                        DriveFacts(source="sysfs", pcie_speed="8.0 GT/s PCIe", pcie_width=2))
    assert check(baseline, during, 10.0).hardware
    assert check(baseline, make_result("20240501-113005-dddd"), 10.0).hardware == ()  # the same link: no reason


def test_check_fails_on_pcie_errors_counted_during_the_run():
    baseline = make_result("20240501-103005-aaaa")
    rerun = with_drive(make_result("20240501-113005-bbbb"),
                       DriveFacts(source="sysfs", pcie_width=4, aer_correctable=10, port_aer_correctable=0),
                       DriveFacts(source="sysfs", pcie_width=4, aer_correctable=14, port_aer_correctable=3))
    report = check(baseline, rerun, 10.0)
    assert report.outcome == FAILED
    assert report.hardware == ("14 PCIe errors were counted (AER) during the re-run",)
    assert "14 PCIe errors" in check_answer(report).text
    rows = {r.label: r.values for r in context_rows([baseline, rerun])}
    assert rows["PCIe errors (AER)"] == ("not counted", "14")
    # The comparison's plain answer names them; the drive's readings gave no speed, which is no link change
    # (it said "the link changed during B (8 GT/s x4 → x4)").
    line = first_lines(compare([baseline, rerun]))[0]
    assert "14 PCIe errors (AER) were counted during B: a contact, a riser or the adapter may be at fault" in line, line
    assert "link changed" not in line and rows["link changes"] == ("none", "none")


def test_a_link_reading_without_its_speed_is_no_change_and_hides_no_slower_one():
    from labtui.analysis import drive_run
    from labtui.analysis.readback import link_words

    unread = DriveFacts(source="sysfs", pcie_speed="Unknown", pcie_width=4)  # sysfs's word for a speed it cannot read
    result = with_drive(make_result("20240501-103005-aaaa"), unread, unread)  # the target: 8 GT/s x4
    assert drive_run.link_changed(result) is None and drive_run.narrowest_link(result) == (8.0, 4)
    assert link_words(result) == "link x4 8 GT/s as before"
    slowed = with_drive(make_result("20240501-113005-bbbb"), unread, DriveFacts(source="sysfs", pcie_speed="2.5 GT/s PCIe",
                                                                                pcie_width=4))
    assert drive_run.link_changed(slowed) == "8 GT/s x4 → 2.5 GT/s x4"
    assert check(make_result("20240501-093005-cccc"), slowed, 10.0).hardware == (
        "the PCIe link came up at 2.5 GT/s x4, slower than the baseline's 8 GT/s x4",)


def test_the_answer_names_a_hotter_drive_that_throttled():
    cool = with_drive(make_result("20240501-103005-aaaa"),
                      DriveFacts(source="smartctl", temperature_c=48.0, thermal_transitions=2, thermal_seconds=10),
                      DriveFacts(source="smartctl", temperature_c=55.0, thermal_transitions=2, thermal_seconds=10))
    hot = with_drive(make_result("20240501-113005-bbbb"),
                     DriveFacts(source="smartctl", temperature_c=60.0, thermal_transitions=2, thermal_seconds=10),
                     DriveFacts(source="smartctl", temperature_c=72.0, thermal_transitions=5, thermal_seconds=50))
    line = first_lines(compare([cool, hot]))[0]
    assert "B ran 17 °C hotter (max 72 °C against 55 °C on A) and throttled for 40 s: the difference may be " \
           "cooling, not the adapter or the disk" in line, line
    rows = {r.label: r.values for r in context_rows([cool, hot])}
    assert rows["drive temperature"] == ("48 °C (max 55 °C)", "60 °C (max 72 °C)")
    assert rows["throttling"] == ("none", "3 transitions, 40 s")
    assert rows["link changes"] == ("none", "none")


def test_no_drive_read_no_rows_and_no_cause():
    plain = [make_result("20240501-103005-aaaa"), make_result("20240501-113005-bbbb")]
    assert "drive temperature" not in {r.label for r in context_rows(plain)}
    assert "hotter" not in first_lines(compare(plain))[0]


def test_the_runs_drive_facts_read_in_the_order_they_were_taken():
    """labtui.analysis.drive_run on its own: temperatures, throttling, AER errors and the least link over the steps."""
    from labtui.analysis import drive_run

    result = make_result("20240501-103005-aaaa")
    assert not drive_run.has_drive(result) and drive_run.temperatures(result) == []
    assert (drive_run.throttling(result), drive_run.aer_errors(result), drive_run.warning_c(result)) == (None, None, None)
    assert drive_run.temperature_text(result) == "unknown" and drive_run.drops_text(result) == "none"
    assert drive_run.link_changed(result) is None  # the target's own link (8 GT/s x4), held
    before = DriveFacts(source="smartctl", temperature_c=40.0, warning_c=70.0, thermal_transitions=2,
                        thermal_seconds=10, aer_correctable=1, pcie_speed="8.0 GT/s PCIe", pcie_width=4)
    after = replace(before, temperature_c=55.0, thermal_transitions=5, thermal_seconds=40, aer_correctable=4,
                    pcie_width=2)
    hot = with_drive(result, before, after)
    first = hot.steps[0]
    hot = replace(hot, steps=(replace(first, samples=(replace(first.samples[0], drive_temp_c=61.0),) + first.samples[1:]),
                              *hot.steps[1:]))
    steps = len(hot.steps)
    assert drive_run.has_drive(hot) and drive_run.temperatures(hot)[:3] == [40.0, 61.0, 55.0]
    assert drive_run.temperature_text(hot) == "40 °C (max 61 °C)" and drive_run.warning_c(hot) == 70.0
    # Transitions and seconds from the first facts to the last; AER errors counted within each step.
    assert drive_run.throttling(hot) == (3, 30)
    assert drive_run.aer_errors(hot) == 3 * steps
    assert drive_run.narrowest_link(hot) == (8.0, 2) and drive_run.link_changed(hot) == "8 GT/s x4 → 8 GT/s x2"
    assert drive_run.link_text(None) == "unknown" and drive_run.link_text((None, 4)) == "x4"
