"""The summary index: the same rows as reading every file, cached, rebuilt for what changed, never trusted blindly."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace

import pytest

from conftest import labtui_cmd
from factories import broken_files, make_result
from labtui.results import summaries
from labtui.results.store import Store
from labtui.results.summaries import ResultSummary, cache_path, previous_comparable
from synthetic import READ, TARGET, run_result
from tui_support import save_history


def _save(store: Store, n: int) -> list:
    return [store.save_result(make_result(f"20240501-1030{i:02d}-{i:04x}", minutes=i))[0] for i in range(n)]


def _reads(monkeypatch) -> list:
    """Count the result files read (parsed) from now on."""
    seen = []
    real = Store.read_result

    def counting(self, path):
        seen.append(path.name)
        return real(self, path)

    monkeypatch.setattr(Store, "read_result", counting)
    return seen


def test_rows_match_the_results_they_summarise(labtui_home):
    store = Store()
    saved = _save(store, 3)
    rows, broken = store.summaries()
    assert broken == []
    assert [r.id for r in rows] == [r.id for r in saved]  # oldest first, as load_results
    for row, result in zip(rows, saved):
        assert row == ResultSummary.of(result, f"{result.id}.toml")
        assert row.steps[0].iops == pytest.approx(result.steps[0].total.iops)
        assert row.disk == "Samsung SSD 980 PRO 1TB #S5GXNF0R123456"


def test_the_second_listing_reads_no_file_and_a_change_reads_only_that_file(labtui_home, monkeypatch):
    store = Store()
    saved = _save(store, 4)
    store.summaries()
    assert cache_path(store.cache_dir).is_file()
    reads = _reads(monkeypatch)
    rows, _ = store.summaries()
    assert reads == [] and len(rows) == 4
    store.update_result(replace(saved[1], tags=("hp-adapter",)))
    rows, _ = store.summaries()
    assert reads == [f"{saved[1].id}.toml"]
    assert next(r for r in rows if r.id == saved[1].id).tags == ("hp-adapter",)
    reads.clear()
    store.delete_result(saved[0].id)
    new, _ = store.save_result(make_result("20240601-000000-abcd"))
    rows, _ = store.summaries()
    assert reads == [f"{new.id}.toml"]
    assert {r.id for r in rows} == {s.id for s in saved[1:]} | {new.id}
    assert set(json.loads(cache_path(store.cache_dir).read_text())["entries"]) == {f"{r.id}.toml" for r in rows}


@pytest.mark.parametrize("damage", [
    b"", b"{not json", b'{"version": 999, "entries": {}}', b'{"version": 1, "schema": 1, "entries": []}',
    b"\xff\xfe garbage",
])
def test_a_broken_or_foreign_cache_is_rebuilt(labtui_home, damage):
    store = Store()
    saved = _save(store, 2)
    store.summaries()
    cache_path(store.cache_dir).write_bytes(damage)
    rows, broken = store.summaries()
    assert [r.id for r in rows] == [r.id for r in saved] and broken == []
    assert json.loads(cache_path(store.cache_dir).read_text())["version"] == summaries.CACHE_VERSION


def test_a_fifo_in_the_caches_place_is_rebuilt_over_not_waited_on(labtui_home):
    store = Store()
    saved = _save(store, 1)
    cache_path(store.cache_dir).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cache_path(store.cache_dir))
    assert [r.id for r in store.summaries()[0]] == [saved[0].id]
    assert json.loads(cache_path(store.cache_dir).read_text())["version"] == summaries.CACHE_VERSION


def test_a_damaged_entry_is_read_again_and_a_lying_one_cannot_survive_a_change(labtui_home):
    store = Store()
    result = _save(store, 1)[0]
    store.summaries()
    data = json.loads(cache_path(store.cache_dir).read_text())
    entry = data["entries"][f"{result.id}.toml"]
    entry["summary"]["steps"] = "nonsense"
    cache_path(store.cache_dir).write_text(json.dumps(data))
    rows, _ = store.summaries()
    assert rows[0].steps[0].name == result.steps[0].name
    # A rewrite with the same size and mtime is still seen (the inode changes on an atomic rewrite).
    path = store.result_path(result.id)
    before = path.stat()
    store.update_result(replace(result, status="failed"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    rows, _ = store.summaries()
    assert rows[0].status == "failed"


def test_broken_files_are_listed_with_their_reason_and_cached_as_broken(labtui_home, monkeypatch):
    store = Store()
    _save(store, 1)
    paths = broken_files(store.results_dir)
    rows, broken = store.summaries()
    _, expected = store.load_results()
    assert len(rows) == 1
    assert sorted((b.path, b.reason) for b in broken) == sorted((b.path, b.reason) for b in expected)
    assert {b.path for b in broken} == set(paths.values())
    reads = _reads(monkeypatch)
    assert store.summaries()[1] == broken and reads == []
    for path in paths.values():
        assert path.exists()  # never touched


def test_a_read_only_cache_folder_only_costs_time(labtui_home, monkeypatch):
    store = Store()
    _save(store, 2)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(summaries, "atomic_write", refuse)
    rows, _ = store.summaries()
    assert len(rows) == 2 and not cache_path(store.cache_dir).exists()


def test_nan_figures_survive_the_cache_as_missing(labtui_home):
    store = Store()
    result = make_result()
    step = replace(result.steps[0], cpu_percent=float("nan"))
    store.save_result(replace(result, steps=(step,)))
    assert store.summaries()[0][0].steps[0].cpu_percent is None
    assert store.summaries()[0][0].steps[0].cpu_percent is None  # from the cache


def test_previous_comparable_run_is_the_latest_earlier_one_on_the_same_disk_and_profile():
    old = run_result("r1", {READ: [1]}, minutes=0)
    newer = run_result("r2", {READ: [1]}, minutes=10)
    other_disk = run_result("r3", {READ: [1]}, minutes=20, target=replace(TARGET, serial="other"))
    other_profile = run_result("r4", {READ: [1]}, minutes=30, profile_name="cdm-nvme")
    failed = run_result("r5", {READ: [1]}, minutes=40, status="failed")
    current = run_result("r6", {READ: [1]}, minutes=50)
    rows = [ResultSummary.of(r, f"{r.id}.toml") for r in (old, newer, other_disk, other_profile, failed, current)]
    assert previous_comparable(rows, current).id == "r2"
    assert previous_comparable(rows, old) is None


def test_reading_files_reports_progress_and_the_index_does_not(labtui_home):
    store = Store()
    _save(store, 120)
    seen = []
    store.summaries(lambda done, total: seen.append((done, total)))
    assert seen == [(49, 120), (99, 120)]
    seen.clear()
    store.summaries(lambda done, total: seen.append((done, total)))
    assert seen == []


def test_labtui_history_reads_through_the_index(labtui_home, capsys):
    from labtui.cli import main

    store = Store()
    saved = _save(store, 2)
    assert main(["history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["results"]
    assert [r["id"] for r in listed] == [r.id for r in reversed(saved)]
    assert cache_path(store.cache_dir).is_file()


def _verified(rid: str, verify) -> object:
    step = replace(READ, verify=True, block_size=65536)
    result = run_result(rid, {step: [50_000]}, target=TARGET)
    return replace(result, steps=tuple(replace(s, verify=verify) for s in result.steps))


def test_a_verified_runs_read_back_survives_the_index_as_the_answer_says_it(labtui_home, monkeypatch):
    # History's detail pane is built from the index; it had no word of whether the data came back.
    from labtui.analysis.readback import data_words
    from labtui.model.verification import CORRUPTED, BlockMismatch, Verification

    gib = 1024**3
    whole = Verification("xxh3-64", blocks=16384, bytes=gib, covered_bytes=gib, file_bytes=gib)
    lost = replace(whole, mismatched=3, covered_bytes=gib // 2,
                   mismatches=(BlockMismatch(65536, CORRUPTED, "16 bytes differ", "", ""),))
    part = replace(whole, covered_bytes=gib // 4)
    store = Store()
    results = {rid: store.save_result(_verified(rid, v))[0]
               for rid, v in (("20240501-103000-aaaa", whole), ("20240501-103100-bbbb", lost),
                              ("20240501-103200-cccc", part))}
    store.save_result(make_result("20240501-103300-dddd"))
    store.summaries()
    reads = _reads(monkeypatch)
    rows, _ = store.summaries()
    assert reads == []  # from the index
    said = {r.id: r.read_back.words(r.id) if r.read_back is not None else None for r in rows}
    assert said == {rid: data_words(result) for rid, result in results.items()} | {"20240501-103300-dddd": None}
    assert said["20240501-103000-aaaa"] == "All 1 GiB read back as written"
    assert said["20240501-103100-bbbb"].startswith("3 blocks did not read back as written (corrupted)")
    by_id = {r.id: r.read_back for r in rows}
    assert by_id["20240501-103000-aaaa"].whole and by_id["20240501-103100-bbbb"].failed
    assert not by_id["20240501-103200-cccc"].whole and not by_id["20240501-103200-cccc"].failed


def test_a_cpu_bound_pass_survives_the_index_and_labtui_history_marks_its_step(labtui_home, monkeypatch, capsys):
    # The index kept only figures: History could not tell a CPU-bound step's figure from the disk's.
    from labtui.cli import main

    reason = "the machine had no idle CPU (100 % busy)"
    result = run_result("20240501-103000-aaaa", {READ: [50_000, 48_000]})
    steps = tuple(replace(s, engine_bound=reason if s.repetition == 2 else None) for s in result.steps)
    store = Store()
    store.save_result(replace(result, steps=steps))
    store.save_result(run_result("20240501-103100-bbbb", {READ: [50_000]}, minutes=1))
    store.summaries()
    reads = _reads(monkeypatch)
    rows, _ = store.summaries()
    assert reads == []  # from the index
    assert [[s.engine_bound for s in r.steps] for r in rows] == [[None, reason], [None]]
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "49,000*" in out and out.count("*") == 3, out  # the mean of both passes, one of them CPU-bound
    assert "* CPU-bound: that figure is the CPUs' (or the engine's) limit, not the disk's" in out
    assert main(["history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["results"]
    assert [s["cpu_bound"] for s in listed[1]["steps"]] == [None, reason]


def test_a_disk_with_no_model_is_listed_by_its_device_from_the_index(labtui_home, monkeypatch, capsys):
    # History and `labtui history` said "unknown disk" for every loop device and virtual disk.
    from labtui.cli import main

    loop = replace(TARGET, model=None, serial=None, device="/dev/loop0", disk="loop0", kind="virtual")
    store = Store()
    saved = store.save_result(run_result("20240501-103000-aaaa", {READ: [50_000]}, target=loop))[0]
    store.summaries()
    reads = _reads(monkeypatch)
    rows, _ = store.summaries()
    assert reads == []  # from the index
    assert rows[0].disk_name == "loop0" and rows[0].disk == saved.target.filesystem + " at /mnt/lab on z8-lab"
    assert "loop0" in rows[0].search_text()
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "loop0" in out and "unknown" not in out, out


DEEP = 100_000  # far past Python's recursion limit


def run(*args, timeout=60):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=timeout)


def test_a_deeply_nested_summary_index_is_rebuilt(labtui_home):
    saved = save_history(labtui_home, broken=False)
    cache = Store(labtui_home).cache_dir / "summaries.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("[" * DEEP + "]" * DEEP)
    out = run("history", "--json")
    assert out.returncode == 0, out.stderr
    assert sorted(r["id"] for r in json.loads(out.stdout)["results"]) == sorted(r.id for r in saved)
    assert json.loads(cache.read_text())["entries"]  # written anew from the result files
    shown = run("show", saved[0].id)
    assert shown.returncode == 0 and saved[0].id in shown.stdout


def test_a_damaged_entry_in_the_index_is_read_again_from_its_file(labtui_home):
    saved = save_history(labtui_home, broken=False)
    run("history")
    cache = Store(labtui_home).cache_dir / "summaries.json"
    data = json.loads(cache.read_text())
    for entry in data["entries"].values():
        entry["summary"]["steps"] = [[[[["not a step"]]]]]
    cache.write_text(json.dumps(data))
    out = run("history", "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["results"]) == len(saved)
