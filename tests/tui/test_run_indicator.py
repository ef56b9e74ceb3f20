"""Where is my run? (tui/run_indicator.py): the words every screen's top line says while a run is going."""

from __future__ import annotations

from pathlib import Path

from labtui.machine.target_choice import Target
from labtui.tui.run_indicator import RunIndicator

TARGET = Target(directory=Path("/data/labtui"))


def test_a_running_step_is_said_with_its_number_its_time_and_the_key_that_shows_it():
    going = RunIndicator("quick-sanity", TARGET, step=2, steps=6, elapsed=21, eta=53)
    assert going.words() == "running quick-sanity · step 2/6 · 0:21, ETA 0:53 (r)"
    assert going.words(compact=True) == "running quick-sanity 2/6 · 0:21, ETA 0:53 (r)"
    assert going.words(brief=True) == "running quick-sanity"  # the Run screen's own lines say the rest


def test_before_the_first_step_and_without_an_eta_the_words_say_only_what_is_known():
    preparing = RunIndicator("cdm-nvme", TARGET, elapsed=3725)
    assert preparing.words() == "running cdm-nvme · 1:02:05 (r)"
    assert preparing.words(compact=True) == "running cdm-nvme · 1:02:05 (r)"


def test_a_run_waiting_for_the_disk_says_so_instead_of_a_time():
    waiting = RunIndicator("quick-sanity", TARGET, step=1, steps=2, elapsed=9, waiting=True)
    assert waiting.words() == "quick-sanity waits for the disk (r)"
    assert waiting.words(brief=True) == "quick-sanity waits for the disk"
    assert RunIndicator("quick-sanity", None, key="F").words() == "running quick-sanity · 0:00 (F)"


def test_the_indicator_of_a_live_run_names_the_chosen_profile_until_the_run_names_its_own():
    from factories import make_result
    from labtui.engine.events import RunStarted, StepStarted
    from labtui.model.result import EngineInfo, TargetInfo
    from labtui.run.live import LiveRun

    now = [100.0]
    live = LiveRun(lambda: now[0])
    profile = make_result().profile  # quick-sanity: two steps
    before = RunIndicator.of(live, "tiny", TARGET)
    assert (before.profile, before.step, before.steps, before.target) == ("tiny", None, None, TARGET)
    live.handle(RunStarted("run-1", profile, TargetInfo(path="/data/labtui"), EngineInfo("native", "1"),
                           len(profile.steps), profile.planned_seconds))
    now[0] += 5.6
    live.handle(StepStarted(1, 2, profile.steps[1], 1, None))
    now[0] += 10
    going = RunIndicator.of(live, "tiny", TARGET)
    assert (going.profile, going.step, going.steps) == ("quick-sanity", 2, 2)
    assert going.elapsed == int(live.elapsed()) and going.eta == int(live.eta_seconds())
    assert going.words(compact=True).startswith("running quick-sanity 2/2 · ")
