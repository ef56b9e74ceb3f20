"""Step names that say what the step does (tui/step_names.py): kept true as its fields change, a person's own
name left alone."""

from __future__ import annotations

from labtui.results.store import builtin_profiles


def test_step_names_in_the_usual_styles_follow_and_names_of_ones_own_do_not():
    from dataclasses import replace

    from labtui.tui.step_names import renamed

    cdm = next(p for p in builtin_profiles() if p.name == "cdm-nvme").steps[2]  # RND4K Q32T16 Read
    assert renamed(cdm.name, cdm, replace(cdm, threads=8, block_size=8192)) == "RND8K Q32T8 Read"
    sql = next(p for p in builtin_profiles() if p.name == "configmgr-sql").steps[1]  # Read 64K random 300s
    assert renamed(sql.name, sql, replace(sql, duration=120.0)) == "Read 64K random 120s"
    assert renamed("My own name", sql, replace(sql, duration=120.0)) is None
    assert renamed("RND4K Q32T16 Read", cdm, replace(cdm, kind="command", command="true")) is None
