"""The built-in profiles say exactly what issues 2 and 9 specify (DiskSpd / CrystalDiskMark sets, zpaq-extract)."""

import pytest

from labtui.model.profile import Profile, Step
from labtui.results.store import builtin_profiles

KIB, GIB = 1024, 1024**3


def by_name() -> dict[str, Profile]:
    return {p.name: p for p in builtin_profiles()}


def shape(step: Step) -> tuple:
    """(pattern, block size, threads, outstanding, write %, seconds, cache, latency)."""
    return (step.pattern, step.block_size, step.threads, step.outstanding, step.write_percent, step.duration,
            step.cache, step.latency)


def test_the_builtins_in_a_stable_order():
    assert [p.name for p in builtin_profiles()] == [
        "quick-sanity", "configmgr-sql-quick", "configmgr-sql", "cdm-standard", "cdm-nvme", "zpaq-extract", "snia-lite",
        "verify-after-swap"]
    for profile in builtin_profiles():
        profile.validate()
        assert profile.origin == "builtin" and profile.title and profile.description
        # Three runs where a check or a best-of needs them; the seed's scripts and long or steady runs once.
        assert profile.repeat == (3 if profile.name.startswith("cdm-") or profile.name == "quick-sanity" else 1)
        assert all(s.cooldown == 0 for s in profile.steps)
        assert all(s.kind == "io" for s in profile.steps) or profile.name == "zpaq-extract"


def test_zpaq_extract_extracts_the_named_archive_into_a_scratch_directory_and_removes_it():
    zpaq = by_name()["zpaq-extract"]
    assert not zpaq.needs_test_file
    (param,) = zpaq.params
    assert (param.name, param.type, param.required) == ("archive", "file", True)
    (step,) = zpaq.steps
    assert step.kind == "command" and step.requires == ("zpaq",)
    # zpaq 7.15: "x" extracts, "-to DIR" puts the whole tree under DIR (absolute paths included).
    assert step.command == "zpaq x {archive} -to {scratch}"
    assert step.cleanup == "rm -rf {scratch}"
    assert step.drop_caches and step.sync and step.timeout >= 3600


def test_configmgr_sql_is_the_diskspd_lab_workload():
    # diskspd -r -w0 -t8 -o8 -b64K -c20G -d60 -Sh -L, then -d300, then the same with -w100.
    sql = by_name()["configmgr-sql"]
    assert (sql.file_size, sql.free_space_margin) == (20 * GIB, 10 * GIB)
    assert [shape(s) for s in sql.steps] == [
        ("random", 64 * KIB, 8, 8, 0, 60.0, "off", True),
        ("random", 64 * KIB, 8, 8, 0, 300.0, "off", True),
        ("random", 64 * KIB, 8, 8, 100, 60.0, "off", True),
        ("random", 64 * KIB, 8, 8, 100, 300.0, "off", True),
    ]
    # DiskSpd's default warm-up (-W5) is part of the workload too.
    assert {s.warmup for s in sql.steps} == {5.0}


def test_configmgr_sql_quick_is_the_same_shape_with_one_read_and_one_write():
    sql, quick = by_name()["configmgr-sql"], by_name()["configmgr-sql-quick"]
    assert (quick.file_size, quick.free_space_margin) == (sql.file_size, sql.free_space_margin)
    assert [shape(s) for s in quick.steps] == [shape(sql.steps[0]), shape(sql.steps[2])]
    assert [s.workload_key() for s in quick.steps] == [sql.steps[0].workload_key(), sql.steps[2].workload_key()]


@pytest.mark.parametrize(
    "name, sets",
    [
        ("cdm-standard", ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]),
        ("cdm-nvme", ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]),
    ],
)
def test_crystaldiskmark_sets(name, sets):
    profile = by_name()[name]
    assert profile.file_size == GIB
    # CrystalDiskMark runs every read test before every write test.
    expected_labels = [f"{label} {rw}" for rw in ("R", "W") for label in sets]
    assert [s.label() for s in profile.steps] == expected_labels
    assert [s.name for s in profile.steps] == [f"{label} {rw}" for rw in ("Read", "Write") for label in sets]
    assert all(s.cache == "off" and s.latency for s in profile.steps)
    # CrystalDiskMark 9: each test once to prepare (not counted), then 3 passes of 5 s without
    # warm-up, 5 s apart, the best one reported, in MB/s of 10^6 bytes; DiskSpd -S (no write-through).
    assert (profile.repeat, profile.repeat_order, profile.discard_first, profile.aggregate) == (3, "step", True, "best")
    assert profile.pause == 5.0 and profile.decimal_units
    assert all((s.duration, s.warmup, s.write_through, s.pause) == (5.0, 0.0, False, None) for s in profile.steps)
    passes = profile.passes()
    assert [(i, rep) for i, _s, rep in passes[:5]] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    assert len(passes) == 4 * len(profile.steps)


def test_configmgr_sql_is_write_through_and_pauses_as_the_script_does():
    # The script's DiskSpd -h (-Sh): the drive's write cache is bypassed too; and it sleeps 5 s
    # between the 60 s and the 300 s run of each direction, not before the first write run.
    sql = by_name()["configmgr-sql"]
    assert all(s.write_through for s in sql.steps) and all(s.write_through for s in by_name()["configmgr-sql-quick"].steps)
    assert [sql.pause_before(s) for s in sql.steps] == [0.0, 5.0, 0.0, 5.0]
    assert sql.aggregate == "mean" and not sql.discard_first


def test_snia_lite_preconditions_then_runs_two_workloads_to_snia_steady_state():
    profile = by_name()["snia-lite"]
    assert profile.precondition == 2 and profile.file_size == 16 * GIB
    assert [shape(s) for s in profile.steps] == [
        ("random", 4 * KIB, 4, 8, 30, 60.0, "off", True),
        ("random", 4 * KIB, 4, 8, 100, 60.0, "off", True),
    ]
    for step in profile.steps:
        assert step.steady == Step(name="x", steady_state="snia").steady  # SNIA's rule: 5-round window, 25 rounds
        assert step.queue_depth == 32 and step.warmup == 0
    # The quick-trial overrides: --duration is the round, --file-size what preconditioning writes.
    trial = profile.with_overrides(duration=1.0, file_size=256 * 1024**2)
    assert all(s.duration == 1.0 and s.steady_state == "snia" for s in trial.steps)
    assert trial.file_size == 256 * 1024**2 and trial.precondition == 2
