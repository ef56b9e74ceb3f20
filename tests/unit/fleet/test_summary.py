"""The cross-host summary (labtui/fleet/summary.py): outliers are hosts far from the median of enough hosts."""

from __future__ import annotations

from labtui.fleet.summary import summarize_hosts
from synthetic import completed_fleet


def test_outliers_are_hosts_far_from_the_median_of_enough_hosts():
    fleet = completed_fleet(12)
    summary = summarize_hosts([(r.name, r.result) for r in fleet.runs if r.result is not None], 5.0)
    assert summary is not None
    write = next(s for s in summary.steps if s.step == "Write 64K random")
    assert [h for h, _ in write.outliers] == ["lab-node-06"]
    read = next(s for s in summary.steps if s.step == "Read 64K random")
    assert read.outliers == ()  # an even spread of hosts has none
    few = completed_fleet(4, slow=1)
    summary = summarize_hosts([(r.name, r.result) for r in few.runs if r.result is not None], 5.0)
    assert all(s.outliers == () for s in summary.steps)  # too few hosts to say who is far from the others
