"""What the Fleet screen's Start runs on every host, and what it says first (labtui/tui/fleet_start.py)."""

from __future__ import annotations

import pytest

from labtui.errors import LabtuiError
from labtui.fleet.hosts import Host
from labtui.model.profile import Param
from labtui.results.store import builtin_profiles
from labtui.tui.fleet_start import fleet_start, ready_line
from labtui.tui.quick_trial import QuickTrial

HOSTS = [Host(f"lab-{i:02d}", f"lab@192.0.2.{i}", target="/srv/bench") for i in range(1, 4)]
PROFILE = next(p for p in builtin_profiles() if p.name == "quick-sanity")


def test_the_ready_line_names_what_ctrl_s_runs_with_the_override_fields_and_refuses_one_that_does_not_apply():
    assert ready_line(HOSTS, "lab.toml", PROFILE, QuickTrial(), one_at_a_time=False) == (
        "3 hosts in lab.toml: ctrl+s runs quick-sanity on all of them together (ctrl+o: one after another).")
    line = ready_line(HOSTS[:1], "lab.toml", PROFILE, QuickTrial(duration=5.0), one_at_a_time=True)
    assert line.startswith("1 host in lab.toml: ctrl+s runs quick-sanity, overridden on the Run screen: duration 5s")
    assert line.endswith(", on each in turn (ctrl+o: together).")
    assert "the chosen profile" in ready_line(HOSTS, "lab.toml", None, QuickTrial(), one_at_a_time=False)
    with pytest.raises(LabtuiError, match=r"^The Run screen's Override .*: ctrl\+s refuses to start"):
        ready_line(HOSTS, "lab.toml", PROFILE, QuickTrial(file_size=1), one_at_a_time=False)


def test_start_sends_every_host_the_profile_overridden_and_asks_first_saying_what_differs():
    start = fleet_start(HOSTS, PROFILE, QuickTrial(duration=5.0), "native", one_at_a_time=False, unsaved=True)
    assert start.title == "Run quick-sanity on 3 hosts?"
    assert all(step.duration == 5.0 for step in start.profile.io_steps) and start.overridden
    first, second, third = start.question.splitlines()[:3]
    assert first.startswith("Your edits to quick-sanity are not saved: this runs the saved profile")
    assert second.startswith("Overridden on the Run screen: duration 5s") and "clear the Override fields" in second
    assert third.startswith("quick-sanity") and "on 3 hosts, all together" in third
    plain = fleet_start(HOSTS, PROFILE, QuickTrial(), "native", one_at_a_time=True, unsaved=False)
    assert plain.profile is PROFILE and not plain.overridden and plain.question.startswith("quick-sanity")


def test_start_refuses_in_one_line_a_profile_with_parameters_or_an_override_that_does_not_apply():
    from dataclasses import replace

    with_params = replace(PROFILE, params=(Param("device"),))
    with pytest.raises(LabtuiError, match=r"takes parameters \(device\): run it with `labtui run --hosts FILE"):
        fleet_start(HOSTS, with_params, QuickTrial(), "native", one_at_a_time=False, unsaved=False)
    with pytest.raises(LabtuiError, match=r"^The Run screen's Override .*: fix it or clear it there \(r\)$"):
        fleet_start(HOSTS, PROFILE, QuickTrial(file_size=1), "native", one_at_a_time=False, unsaved=False)
