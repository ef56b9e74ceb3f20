"""The workload's profile and steps (labtui/model/profile.py): every validation error names its field;
planned time, labels and overrides."""

from dataclasses import replace

import pytest

from labtui.errors import ValidationError
from labtui.model.profile import MAX_OUTSTANDING, MAX_REPEAT, MAX_THREADS, STEP_STARTUP_SECONDS, Profile, Step, override_refused
from labtui.results.profile_file import profile_from_table, profile_to_table, step_to_table

MIB = 1024 * 1024


def step_data(**changes):
    data = {
        "name": "Read 64K random",
        "block_size": "64KiB",
        "pattern": "random",
        "write_percent": 0,
        "threads": 4,
        "outstanding": 8,
        "duration": "10s",
        "warmup": "2s",
        "cooldown": "0s",
        "cache": "off",
        "latency": True,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not DROP}


def profile_data(steps=None, **changes):
    data = {
        "name": "my-test",
        "title": "My test",
        "description": "",
        "file_size": "1GiB",
        "free_space_margin": "1GiB",
        "repeat": 1,
        "steps": [step_data()] if steps is None else steps,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not DROP}


DROP = object()


def rejected(data) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        profile_from_table(data)
    return info.value


def test_a_valid_profile_reads_with_every_field():
    profile = profile_from_table(profile_data())
    assert profile.name == "my-test" and profile.title == "My test"
    assert profile.file_size == 1024**3 and profile.free_space_margin == 1024**3 and profile.repeat == 1
    (step,) = profile.steps
    assert step == Step(
        name="Read 64K random", block_size=65536, pattern="random", write_percent=0, threads=4,
        outstanding=8, duration=10.0, warmup=2.0, cooldown=0.0, cache="off", latency=True,
    )


def test_left_out_keys_take_the_same_defaults_as_the_dataclass():
    profile = profile_from_table({"name": "bare", "steps": [{"name": "s"}]})
    assert profile == Profile(name="bare", title="bare", steps=(Step(name="s"),))
    assert profile.free_space_margin == Profile(name="x").free_space_margin


@pytest.mark.parametrize(
    "step_changes, field, reason",
    [
        ({"block_size": "1000"}, "steps[1].block_size", "multiple of 512"),
        ({"block_size": "4100", "cache": "off"}, "steps[1].block_size", "multiple of 512"),
        ({"block_size": "0"}, "steps[1].block_size", "greater than zero"),
        ({"block_size": "-4K"}, "steps[1].block_size", "negative"),
        ({"block_size": "4Q"}, "steps[1].block_size", "unknown size unit"),
        ({"block_size": True}, "steps[1].block_size", "expected a size"),
        ({"threads": 0}, "steps[1].threads", "threads must be 1..256"),
        ({"threads": -1}, "steps[1].threads", "threads must be"),
        ({"threads": MAX_THREADS + 1}, "steps[1].threads", f"got {MAX_THREADS + 1}"),
        ({"threads": "eight"}, "steps[1].threads", "whole number"),
        ({"threads": 1.5}, "steps[1].threads", "whole number"),
        ({"threads": True}, "steps[1].threads", "whole number"),
        ({"threads": [4]}, "steps[1].threads", "whole number"),
        ({"outstanding": 0}, "steps[1].outstanding", "outstanding I/Os per thread must be 1..1024"),
        ({"outstanding": MAX_OUTSTANDING + 1}, "steps[1].outstanding", "must be 1..1024"),
        ({"write_percent": -1}, "steps[1].write_percent", "within 0..100"),
        ({"write_percent": 101}, "steps[1].write_percent", "within 0..100"),
        ({"write_percent": "half"}, "steps[1].write_percent", "whole number"),
        ({"threads": "４"}, "steps[1].threads", "whole number in digits 0-9, got '４'"),
        ({"outstanding": "٨"}, "steps[1].outstanding", "in digits 0-9"),
        ({"block_size": "６４K"}, "steps[1].block_size", "write its digits as 0-9"),
        ({"duration": "１０s"}, "steps[1].duration", "write its digits as 0-9"),
        ({"pattern": "randm"}, "steps[1].pattern", "random or sequential"),
        ({"pattern": 5}, "steps[1].pattern", "must be a string"),
        ({"cache": "maybe"}, "steps[1].cache", "off or on"),
        ({"cache": False}, "steps[1].cache", "must be a string"),
        ({"kind": "shell"}, "steps[1].kind", "io, command"),
        ({"latency": "yes"}, "steps[1].latency", "true or false"),
        ({"native_workers": "per-process"}, "steps[1].native_workers", "auto or per-thread, got 'per-process'"),
        ({"native_workers": 1}, "steps[1].native_workers", "must be a string"),
        ({"name": ""}, "steps[1].name", "non-empty name"),
        ({"name": "   "}, "steps[1].name", "non-empty name"),
        ({"name": DROP}, "steps[1].name", "non-empty name"),
        ({"name": 7}, "steps[1].name", "must be a string, got 7"),
        ({"duration": "0s"}, "steps[1].duration", "greater than zero"),
        ({"duration": "0.5ms"}, "steps[1].duration", "a step must last at least 100ms (shorter is too short to "
                                                     "measure), got 0.5ms"),
        ({"duration": "99ms"}, "steps[1].duration", "at least 100ms"),
        ({"duration": "ten seconds"}, "steps[1].duration", "is not a duration"),
        ({"duration": "10d"}, "steps[1].duration", "unknown duration unit"),
        ({"warmup": "-1s"}, "steps[1].warmup", "negative"),
        ({"cooldown": "-1s"}, "steps[1].cooldown", "negative"),
        ({"blocksize": "64K"}, "steps[1]", "unknown key 'blocksize' (did you mean 'block_size'?)"),
        ({"colour": "red"}, "steps[1]", "unknown key 'colour'"),
        ({"command": "true"}, "steps[1].command", "'command' does not apply to a step of kind 'io'"),
        ({"timeout": "1m"}, "steps[1].timeout", "does not apply"),
    ],
)
def test_step_errors_name_their_field(step_changes, field, reason):
    error = rejected(profile_data(steps=[step_data(**step_changes)]))
    assert error.field == field
    assert reason in error.reason, error.reason
    assert str(error).startswith(field + ": ")


def test_a_quick_trial_too_short_to_measure_is_refused_by_the_same_rule():
    # `run --duration 0.5ms` and the Run screen's Override field: a write step had "completed" with 0.0 IOPS.
    profile = profile_from_table(profile_data(steps=[step_data()]))
    with pytest.raises(ValidationError) as refused:
        profile.with_overrides(duration=0.0005)
    assert refused.value.field == "steps[1].duration" and "at least 100ms" in refused.value.reason
    assert override_refused(refused.value.field, duration=0.0005, file_size=None, repeat=None) == "duration"
    assert profile.with_overrides(duration=0.1).steps[0].duration == 0.1


def test_the_second_step_is_named_by_its_position():
    error = rejected(profile_data(steps=[step_data(), step_data(threads=0)]))
    assert error.field == "steps[2].threads"


def test_block_size_not_a_sector_multiple_is_fine_with_cache_on():
    profile = profile_from_table(profile_data(steps=[step_data(block_size="1000", cache="on")]))
    assert profile.steps[0].block_size == 1000


@pytest.mark.parametrize(
    "changes, field, reason",
    [
        ({"file_size": "32K"}, "file_size", "smaller than one block"),
        ({"file_size": "0"}, "file_size", "greater than zero"),
        ({"file_size": "big"}, "file_size", "is not a size"),
        ({"free_space_margin": "-1G"}, "free_space_margin", "negative"),
        ({"repeat": 0}, "repeat", "must be from 1 to 100, got 0"),
        ({"repeat": -3}, "repeat", "must be from 1 to 100"),
        ({"repeat": MAX_REPEAT + 1}, "repeat", "got 101"),
        ({"repeat": "twice"}, "repeat", "whole number"),
        ({"repeat": "２"}, "repeat", "in digits 0-9"),
        ({"file_size": "１G"}, "file_size", "write its digits as 0-9"),
        ({"name": ""}, "name", "not a usable name"),
        ({"name": "my test!"}, "name", "not a usable name"),
        ({"name": "../etc"}, "name", "not a usable name"),
        ({"name": "x" * 81}, "name", "at most 80"),
        ({"name": DROP}, "name", "needs a name"),
        ({"name": 42}, "name", "must be a string, got 42"),
        ({"title": 42}, "title", "must be a string"),
        ({"description": ["a"]}, "description", "must be a string"),
        ({"steps": []}, "steps", "at least one"),
        ({"steps": DROP}, "steps", "at least one"),
        ({"steps": {"name": "x"}}, "steps", "at least one"),
        ({"steps": ["read"]}, "steps[1]", "must be a table"),
        ({"file_sise": "1G"}, "", "unknown key 'file_sise' (did you mean 'file_size'?)"),
        ({"threads": 4}, "", "unknown key 'threads'"),
    ],
)
def test_profile_errors_name_their_field(changes, field, reason):
    error = rejected(profile_data(**changes))
    assert error.field == field
    assert reason in error.reason, error.reason


def test_a_profile_must_be_a_table():
    with pytest.raises(ValidationError, match="must be a table"):
        profile_from_table(["steps"])


def command_step(**changes):
    data = {"name": "Extract archive", "kind": "command", "command": "zpaq x backup.zpaq", "timeout": "10m"}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not DROP}


def test_a_command_step_round_trips_with_its_own_keys_only():
    data = command_step(setup="mkdir -p x", cleanup="rm -rf x", requires=["zpaq"], drop_caches=True, sync=False,
                        cooldown="1s")
    step = profile_from_table(profile_data(steps=[data])).steps[0]
    assert (step.requires, step.drop_caches, step.sync, step.cooldown) == (("zpaq",), True, False, 1.0)
    assert step_to_table(step) == data | {"timeout": "10m"}
    assert Step(name="x", kind="command", command="true").sync  # flushed inside the timed window by default


def test_a_command_takes_as_long_as_it_takes():
    profile = Profile(name="p", steps=(Step(name="c", kind="command", command="true", cooldown=3.0),
                                       Step(name="io", duration=10.0, warmup=2.0)), repeat=2)
    # Each I/O step also starts and stops its engine's workers; a command has only its cool-down.
    assert profile.planned_seconds == pytest.approx(2 * (3.0 + 12.0 + STEP_STARTUP_SECONDS))


def test_a_command_step_reads_and_validates():
    profile = profile_from_table(profile_data(steps=[command_step(workdir="/tmp", setup="mkdir -p x")]))
    step = profile.steps[0]
    assert (step.kind, step.command, step.timeout, step.workdir, step.setup) == (
        "command", "zpaq x backup.zpaq", 600.0, "/tmp", "mkdir -p x")
    assert not step.is_io and not step.reads and not step.writes
    assert step.label() == "CMD zpaq"
    assert not profile.needs_test_file


@pytest.mark.parametrize(
    "changes, field, reason",
    [
        ({"command": ""}, "steps[1].command", "needs a command"),
        ({"command": DROP}, "steps[1].command", "needs a command"),
        ({"timeout": "0s"}, "steps[1].timeout", "greater than zero"),
        ({"block_size": "4K"}, "steps[1].block_size", "'block_size' does not apply to a step of kind 'command'"),
        ({"threads": 2}, "steps[1].threads", "does not apply"),
        ({"warmup": "2s"}, "steps[1].warmup", "'warmup' does not apply to a step of kind 'command'"),
        ({"requires": "zpaq"}, "steps[1].requires", "must be a list of program names"),
        ({"requires": ["zpaq x"]}, "steps[1].requires", "is not a program name"),
        ({"sync": "yes"}, "steps[1].sync", "must be true or false"),
    ],
)
def test_command_step_errors(changes, field, reason):
    error = rejected(profile_data(steps=[command_step(**changes)]))
    assert error.field == field and reason in error.reason


def test_validate_catches_what_code_builds_directly():
    good = Step(name="s", block_size=4096)
    good.validate()
    cases = [
        (Step(name="s", block_size=1000), "step.block_size"),
        (Step(name="s", threads=0), "step.threads"),
        (Step(name="s", outstanding=0), "step.outstanding"),
        (Step(name="s", write_percent=150), "step.write_percent"),
        (Step(name="s", pattern="zigzag"), "step.pattern"),
        (Step(name="s", cache="sometimes"), "step.cache"),
        (Step(name="s", kind="sql"), "step.kind"),
        (Step(name=" "), "step.name"),
        (Step(name="s", duration=0), "step.duration"),
        (Step(name="s", warmup=-1), "step.warmup"),
        (Step(name="s", cooldown=-1), "step.cooldown"),
        (Step(name="s", block_size=0, cache="on"), "step.block_size"),
    ]
    for step, field in cases:
        with pytest.raises(ValidationError) as info:
            step.validate()
        assert info.value.field == field, step
    with pytest.raises(ValidationError) as info:
        Profile(name="p", file_size=4096, steps=(Step(name="s", block_size=8192),)).validate()
    assert info.value.field == "file_size"
    with pytest.raises(ValidationError) as info:
        Profile(name="p", steps=()).validate()
    assert info.value.field == "steps"


def test_step_labels_and_workload_keys():
    read = Step(name="a", block_size=64 * 1024, threads=8, outstanding=8)
    assert read.label() == "RND64K Q8T8 R"
    assert Step(name="b", block_size=MIB, pattern="sequential", outstanding=8, write_percent=100).label() == "SEQ1M Q8T1 W"
    assert Step(name="c", block_size=4096, write_percent=30).label() == "RND4K Q1T1 W30"
    # Same workload whatever it is called or how long it runs; a different mix is another workload.
    assert read.workload_key() == Step(name="other", block_size=65536, threads=8, outstanding=8, duration=99).workload_key()
    assert read.workload_key() != Step(name="a", block_size=65536, threads=8, outstanding=8, write_percent=100).workload_key()
    assert read.queue_depth == 64 and read.reads and not read.writes
    mixed = Step(name="m", write_percent=30)
    assert mixed.reads and mixed.writes


def test_planned_seconds_and_overrides():
    profile = profile_from_table(profile_data(repeat=2, steps=[step_data(), step_data(name="w", write_percent=100)]))
    assert profile.planned_seconds == pytest.approx(2 * 2 * (10 + 2 + STEP_STARTUP_SECONDS))
    quick = profile.with_overrides(duration=1.0, file_size=64 * MIB, repeat=1)
    assert [s.duration for s in quick.steps] == [1.0, 1.0] and quick.file_size == 64 * MIB and quick.repeat == 1
    with pytest.raises(ValidationError) as info:
        profile.with_overrides(file_size=4096)
    assert info.value.field == "file_size"
    with pytest.raises(ValidationError) as info:
        profile.with_overrides(repeat=0)
    assert info.value.field == "repeat"


def test_an_overridden_profile_describes_what_runs_and_names_its_profile():
    from labtui.results.store import builtin_profiles

    original = next(p for p in builtin_profiles() if p.name == "quick-sanity")
    assert "10 s each on a 1 GiB file" in original.description and not original.overridden
    quick = original.with_overrides(duration=1.0, file_size=64 * MIB)
    assert quick.name == "quick-sanity" and quick.overridden and quick.shown_name == "quick-sanity (overridden)"
    assert quick.title == "Quick sanity check, overridden"
    assert quick.description == ("quick-sanity overridden on the command line: duration 1s in every step (was 10s), "
                                 "test file 64MiB (was 1GiB)")
    assert "10 s each" not in quick.description
    # Overridden again (check --duration on an overridden baseline): said once, against what it was.
    again = quick.with_overrides(duration=2.0)
    assert again.title == "Quick sanity check, overridden" and "duration 2s in every step (was 1s)" in again.description
    assert "every step run 5 times (was 3)" in original.with_overrides(repeat=5).description
    # Steps of different lengths: every I/O step gets the new one; what they were is listed.
    mixed = replace(original, steps=(original.steps[0], replace(original.steps[1], duration=5.0)))
    assert "duration 1s in every I/O step (was 5s, 10s)" in mixed.with_overrides(duration=1.0).description
    # A steady-state step's duration is a round's length: the description says so.
    snia = next(p for p in builtin_profiles() if p.name == "snia-lite")
    assert "a round's length where a step runs to steady state" in snia.with_overrides(duration=1.0).description
    assert "round" not in quick.description
    # What changes nothing is not an override.
    assert original.with_overrides(duration=10.0, file_size=original.file_size, repeat=3) == original
    # A result's profile keeps it through the file format.
    assert profile_from_table(profile_to_table(quick)).description == quick.description


def test_a_live_sample_interval_is_100ms_to_an_hour_and_at_most_the_shortest_step():
    io = Step("Read", duration=5.0)
    profile = Profile("p", steps=(io, replace(io, name="Short", duration=2.0)))
    assert profile.interval_problem(0.1) is None and profile.interval_problem(2.0) is None
    assert profile.interval_problem(2.5, "2.5s") == "must be from 100ms to 2s, got '2.5s' (step 'Short' lasts 2s)"
    assert profile.interval_problem(0.05) == "must be from 100ms to 2s, got '50ms' (step 'Short' lasts 2s)"
    steady = Profile("p", steps=(replace(io, steady_state="iops:20%"),))
    assert profile_problem_why(steady, 9.0) == "step 'Read' has rounds of 5s"
    # A command's length is unknown: its time limit bounds it, and an hour bounds everything.
    command = Step("Unpack", kind="command", command="true", timeout=60.0)
    assert profile_problem_why(Profile("c", steps=(command,)), 61.0) == "step 'Unpack' may take at most 1m"
    assert Profile("c", steps=(replace(command, timeout=86400.0),)).interval_problem(7200.0) == \
        "must be from 100ms to 1h, got '2h'"
    tiny = Profile("t", steps=(replace(io, duration=0.05),))
    assert "no interval fits" in tiny.interval_problem(0.05, "50ms")


def profile_problem_why(profile: Profile, seconds: float) -> str:
    problem = profile.interval_problem(seconds)
    assert problem is not None
    return problem.rsplit(" (", 1)[1].rstrip(")")
