"""The Fleet screen's panel under the hosts (widgets/fleet_summary.py): per step the fastest and slowest host,
how far apart, the hosts far from the others, and whether noise could be told from a difference."""

from __future__ import annotations

from textual.app import App, ComposeResult

from labtui.fleet.summary import summarize_hosts
from labtui.widgets.fleet_summary import FleetSummary, summary_text
from synthetic import READ, WRITE, run_result


def _hosts(figures: dict[str, dict]) -> list:
    return [(host, run_result(f"20240601-09000{i}-aaa{i}", steps)) for i, (host, steps) in enumerate(figures.items())]


def test_each_step_names_its_fastest_and_slowest_host_and_how_far_apart_they_are():
    summary = summarize_hosts(_hosts({"lab-01": {READ: [10_000.0], WRITE: [5000.0]},
                                      "lab-02": {READ: [12_000.0], WRITE: [4000.0]},
                                      "lab-03": {READ: [3000.0], WRITE: [5100.0]}}), 5.0)
    assert summary_text(summary).splitlines() == [
        "Across the 3 hosts that completed (each against lab-01):",
        "  Read 64K random: fastest lab-02 (12,000 IOPS), slowest lab-03 (3,000 IOPS), 75.0 % apart",
        "  Write 64K random: fastest lab-03 (5,100 IOPS), slowest lab-02 (4,000 IOPS), 21.6 % apart",
        "Single runs cannot tell a difference from noise: repeat the runs.",
    ]


def test_a_host_far_from_the_others_is_named_and_repeated_runs_say_no_noise_warning():
    lab = {f"lab-0{i}": {READ: [v]} for i, v in enumerate([10_000.0, 10_100.0, 9900.0, 10_050.0, 3000.0])}
    assert summary_text(summarize_hosts(_hosts(lab), 5.0)).splitlines()[1].endswith(
        "70.3 % apart; far from the others: lab-04")
    repeated = _hosts({"a": {READ: [10_000.0, 10_100.0, 9900.0]}, "b": {READ: [10_100.0, 10_000.0, 10_000.0]}})
    text = summary_text(summarize_hosts(repeated, 5.0))
    assert text.startswith("Across the 2 hosts") and "Single runs" not in text


async def test_the_panel_shows_the_summary_and_is_empty_without_one():
    class Host(App):
        def compose(self) -> ComposeResult:
            yield FleetSummary(id="summary")

    hosts = _hosts({"lab-01": {READ: [10_000.0]}, "lab-[b]02": {READ: [9000.0]}})
    app = Host()
    async with app.run_test(size=(100, 10)) as pilot:
        panel = app.query_one(FleetSummary)
        panel.show(summarize_hosts(hosts, 5.0))
        await pilot.pause()
        assert "slowest lab-[b]02 (9,000 IOPS)" in panel.text  # a host's name is never markup
        assert summarize_hosts(hosts[:1], 5.0) is None  # one host completed: nothing to compare
        panel.show(None)
        await pilot.pause()
        assert panel.text == ""
