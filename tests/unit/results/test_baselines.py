"""Baselines: one per disk and profile, durable, replaced and cleared; a broken file is left alone."""

import os
from dataclasses import replace

import pytest

from labtui.errors import LabtuiError, NotFoundError, StoreError
from labtui.model.result import disk_identity
from labtui.results import baselines
from labtui.results.store import Store
from synthetic import HOST, READ, TARGET, run_result


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "home")


def saved(store, result):
    return store.save_result(result)[0]


def test_mark_find_replace_and_clear(store):
    first = saved(store, run_result("r1", {READ: [50_000]}))
    second = saved(store, run_result("r2", {READ: [51_000]}, minutes=5))
    other_profile = saved(store, run_result("r3", {READ: [9_000]}, profile_name="cdm-standard", minutes=9))
    baseline, replaced = baselines.mark(store, first)
    assert replaced is None and baseline.disk == "WD_BLACK SN850X 4000GB #23000A800001"
    baseline, replaced = baselines.mark(store, second)
    assert replaced.result_id == "r1"
    assert baselines.mark(store, second)[1] is None  # marked again: it replaces no result
    baselines.mark(store, other_profile)
    # Durable: a new Store (another process) sees the same.
    again = Store(store.home)
    assert baselines.ids(again) == {"r2", "r3"}
    assert baselines.find(again, TARGET, HOST.name, "quick-sanity").result_id == "r2"
    with pytest.raises(LabtuiError, match="several profiles"):
        baselines.find(again, TARGET, HOST.name)
    assert [b.result_id for b in baselines.clear(again, "r3")] == ["r3"]
    assert baselines.find(again, TARGET, HOST.name).result_id == "r2"
    with pytest.raises(NotFoundError):
        baselines.clear(again, "r3")


def test_the_baseline_follows_the_drive_by_serial_not_the_slot(store):
    result = saved(store, run_result("r1", {READ: [50_000]}))
    baselines.mark(store, result)
    moved = replace(TARGET, path="/mnt/other", device="/dev/nvme1n1p1", disk="nvme1n1", pcie_width=8)
    assert baselines.find(store, moved, "another-host", "quick-sanity").result_id == "r1"
    other_disk = replace(TARGET, serial="XYZ")
    with pytest.raises(NotFoundError, match="no baseline for WD_BLACK SN850X 4000GB #XYZ"):
        baselines.find(store, other_disk, HOST.name)


def test_disks_without_a_serial_are_told_apart_by_host():
    no_serial = replace(TARGET, serial=None)
    assert disk_identity(no_serial, "a") != disk_identity(no_serial, "b")
    tmpfs = replace(TARGET, model=None, serial=None, filesystem="tmpfs", mount_point="/dev/shm")
    assert disk_identity(tmpfs, "a") == "tmpfs at /dev/shm on a"


def test_only_a_completed_result_can_be_a_baseline(store):
    aborted = saved(store, run_result("r1", {READ: [50_000]}, status="aborted"))
    with pytest.raises(LabtuiError, match="only a completed result"):
        baselines.mark(store, aborted)
    assert not baselines.path(store).exists()


def test_a_broken_baselines_file_is_reported_and_never_overwritten(store):
    result = saved(store, run_result("r1", {READ: [50_000]}))
    baselines.path(store).write_text("this is [not toml")
    with pytest.raises(StoreError, match="baselines.toml"):
        baselines.mark(store, result)
    assert baselines.path(store).read_text() == "this is [not toml"
    baselines.path(store).unlink()
    os.mkfifo(baselines.path(store))  # read through one checked descriptor: said, never waited on
    with pytest.raises(StoreError, match=r"baselines.toml: cannot read: it is a FIFO, not a regular file$"):
        baselines.load(store)



def test_a_baseline_is_a_set_of_runs_that_grows_and_shrinks(tmp_path):
    store = Store(tmp_path)
    first = store.save_result(run_result("r1", {READ: [50_000]}))[0]
    more = store.save_result(run_result("r2", {READ: [50_100, 49_900]}, minutes=5))[0]
    baseline, _ = baselines.mark(store, first, [more])
    assert baseline.result_ids == ("r1", "r2") and baselines.runs_per_step([first, more]) == 3
    again = baselines.add(store, first, [store.save_result(run_result("r3", {READ: [50_200]}, minutes=9))[0]])
    assert again.result_ids == ("r1", "r2", "r3") and baselines.holding(store, "r3").result_id == "r1"
    assert baselines.ids(store) == {"r1", "r2", "r3"}
    baselines.clear(store, "r2")  # an added run leaves; the baseline stays
    assert baselines.holding(store, "r1").result_ids == ("r1", "r3")
    baselines.clear(store, "r1")  # the marked one takes the baseline with it
    assert baselines.load(store) == []


def test_runs_of_another_disk_or_profile_cannot_join_a_baseline(tmp_path):
    store = Store(tmp_path)
    first = run_result("r1", {READ: [50_000]})
    elsewhere = run_result("r2", {READ: [50_000]}, target=replace(TARGET, serial="OTHER"))
    with pytest.raises(LabtuiError, match="a baseline's runs must be of one profile on one disk"):
        baselines.mark(store, first, [elsewhere])
    with pytest.raises(LabtuiError, match="one profile on one disk"):
        baselines.add(store, first, [run_result("r3", {READ: [1.0]}, profile_name="cdm-nvme")])
    assert not baselines.path(store).exists()
