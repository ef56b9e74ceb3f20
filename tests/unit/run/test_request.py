"""What a run or a check is asked to do (labtui.run.request): equal for equal asks however typed, and what
the runner is given from one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from labtui.errors import ValidationError
from labtui.model.profile import DEFAULT_INTERVAL, Profile, Step
from labtui.run.request import CheckRequest, Overrides, RunRequest

PROFILE = Profile("p", file_size=64 * 1024**2, steps=(Step("Read", duration=2.0, warmup=0.0),
                                                       Step("Write", duration=2.0, warmup=0.0, write_percent=100)))


def test_requests_asked_alike_are_equal_and_hashable_however_they_were_typed():
    typed = RunRequest(profile="p", overrides=Overrides(duration=90.0), interval=0.5,
                       as_given=(("duration", "1.5m"), ("interval", "500ms")))
    other = RunRequest(profile="p", overrides=Overrides(duration=90.0), interval=0.5,
                       as_given=(("duration", "90s"), ("interval", "0.5s")))
    assert typed == other and hash(typed) == hash(other) and len({typed, other}) == 1
    assert typed.given("duration") == "1.5m" and other.given("interval") == "0.5s" and typed.given("file_size") is None
    assert typed != replace(typed, tags=("x",)) and typed != replace(typed, overrides=Overrides(duration=91.0))
    with pytest.raises(AttributeError):
        typed.profile = "q"  # type: ignore[misc]
    assert CheckRequest() == CheckRequest(run=RunRequest()) and CheckRequest() != CheckRequest(confirm=0)


def test_overrides_apply_to_a_profile_and_say_which_one_a_profile_refused():
    assert not Overrides() and Overrides().apply(PROFILE) is PROFILE and Overrides(repeat=2)
    trial = Overrides(duration=1.0, file_size=8 * 1024**2, repeat=2).apply(PROFILE)
    assert [s.duration for s in trial.steps] == [1.0, 1.0] and (trial.file_size, trial.repeat) == (8 * 1024**2, 2)
    assert "on the command line" in trial.description and "on the Run screen" in Overrides(repeat=2).apply(
        PROFILE, where="on the Run screen").description
    tiny = Overrides(file_size=1024)
    with pytest.raises(ValidationError) as refused:
        tiny.apply(PROFILE)
    assert tiny.refused(refused.value.field) == "file_size" and Overrides(repeat=2).refused(refused.value.field) is None


def test_the_runner_is_given_what_the_request_asks(tmp_path):
    from labtui.engine.registry import default_engine
    from labtui.results.store import Store

    plain = RunRequest(profile="p").options()
    assert (plain.engine, plain.interval, plain.tags, plain.params, plain.keep_file, plain.force,
            plain.destroy_data) == (default_engine(), DEFAULT_INTERVAL, (), {}, False, False, None)
    asked = RunRequest(profile="p", target=str(tmp_path), engine="native", tags=("a",), params=(("n", "1"),),
                       interval=0.25, keep_file=True, force=True)
    options = asked.options(drive_every=5.0)
    assert (options.tags, options.params, options.interval, options.keep_file, options.force, options.drive_every) == (
        ("a",), {"n": "1"}, 0.25, True, True, 5.0)
    runner = asked.runner(PROFILE, Store(tmp_path / "home"))
    assert runner.target_arg == str(tmp_path) and runner.options == asked.options() and runner.profile is PROFILE
    assert RunRequest(profile="p").runner(PROFILE, Store(tmp_path / "home")).target_arg == "."


def test_an_interval_asked_for_is_judged_against_the_profile_in_the_words_it_was_typed():
    assert RunRequest().interval_problem(PROFILE) is None
    assert RunRequest(interval=0.5).interval_problem(PROFILE) is None
    assert RunRequest(interval=3.0, as_given=(("interval", "3000ms"),)).interval_problem(PROFILE) == (
        "must be from 100ms to 2s, got '3000ms' (step 'Read' lasts 2s)")
    assert RunRequest(interval=3.0).interval_problem(PROFILE) == "must be from 100ms to 2s, got '3s' (step 'Read' lasts 2s)"
