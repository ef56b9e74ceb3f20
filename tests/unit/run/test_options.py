"""What a run is asked to do (labtui.run.options.RunOptions): the defaults every front gets without asking."""

from __future__ import annotations

from labtui.analysis import steady
from labtui.engine import registry
from labtui.machine.drive import run_reader
from labtui.run.drive_watch import EVERY
from labtui.run.options import RunOptions


def test_a_run_asked_for_nothing_takes_the_default_engine_judges_steady_state_and_reads_the_drive():
    options = RunOptions()
    assert options.engine == registry.default_engine()
    assert options.judge is steady.judge  # no front has to hand in the judge (issue 40: five callers did)
    assert options.drive is run_reader and options.drive_every == EVERY
    assert (options.interval, options.keep_file, options.force, options.destroy_data) == (1.0, False, False, None)
    assert options.engine_settings is None and options.target_lock is None  # the store's config, its own lock


def test_two_runs_never_share_their_parameters():
    first, second = RunOptions(), RunOptions()
    first.params["archive"] = "/data/a.zpaq"
    assert second.params == {}
