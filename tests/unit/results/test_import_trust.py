"""Import keeps only what a report can back: one result per file, figures that agree with each
other, no report cut short, no file that is not a report, nothing printed raw from it."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd, report_fixtures
from labtui.errors import ReportError
from labtui.model.result import LatencySummary
from labtui.results.imports import import_file, import_text
from labtui.results.store import Store

FIO_MIXED = FIXTURES / "fio-json/fio-3.36-randrw128k-qd1-psync-default.json"
FIO_TWO_FILES = FIXTURES / "fio-json/fio-3.26-readwrite256k-rw70-30-qd64-2files-libaio.json"
FIO_STREAM = FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json"
LINUX_TEXT = FIXTURES / "diskspd-text/diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt"
TEXT_L = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd4k-rw70-30-L-D-noheader.txt"
TEXT_TARGETS = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-5targets-t23-o22-L-D-multigroup.txt"
XML = FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml"


def run(*args):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True)


# --------------------------------------------------------------------------- idempotent


def test_the_same_file_imported_twice_is_one_result_and_says_so(labtui_home, tmp_path):
    first = run("import", str(XML))
    assert first.returncode == 0, first.stderr
    result_id = first.stdout.split("-> ")[-1].strip()
    # Again, under another name, and twice on one command line: nothing new.
    copy = tmp_path / "renamed.xml"
    copy.write_bytes(XML.read_bytes())
    again = run("import", "--tag", "late", str(XML), str(copy))
    assert again.returncode == 0, again.stderr
    assert again.stdout.count(f"already imported as {result_id}; nothing changed") == 2
    assert "tags are left as they are" in again.stdout
    as_json = json.loads(run("import", "--json", str(copy)).stdout)
    assert as_json == {"results": [], "already_imported": [{"file": str(copy), "ids": [result_id]}]}
    results, _ = Store(labtui_home).load_results()
    assert [r.id for r in results] == [result_id] and results[0].tags == ()
    assert results[0].source_digest.startswith("sha256:")


def test_one_file_given_twice_imports_once(labtui_home):
    out = run("import", str(FIO_MIXED), str(FIO_MIXED))
    assert out.returncode == 0 and out.stdout.count(" -> ") == 1 and "already imported" in out.stdout
    assert len(Store(labtui_home).load_results()[0]) == 1


# --------------------------------------------------------------------------- figures


def test_fio_percentiles_never_pass_the_slowest_io():
    # fio gives a percentile as its histogram bucket's value: p99.9 151.86 ms, max 143.92 ms.
    raw = json.loads(FIO_TWO_FILES.read_text())["jobs"][0]["read"]["clat_ns"]  # the block with percentiles
    assert raw["percentile"]["99.900000"] > raw["max"]
    (result,) = import_file(FIO_TWO_FILES)
    for lat in (result.steps[0].read_latency, result.steps[0].write_latency):
        assert lat.p999 <= lat.max and lat.p9999 <= lat.max and lat.p50 >= lat.min
    assert result.steps[0].read_latency.max == pytest.approx(raw["max"] / 1e6)
    assert not [w for w in result.warnings if "contradict" in w]


def test_a_mixed_step_shows_its_p99_per_direction_where_the_report_has_none_of_its_own():
    from labtui.render.result_tables import p99_text

    (result,) = import_file(FIO_MIXED)
    step = result.steps[0]
    assert step.latency.p99 is None  # plain JSON: no histograms to merge the directions with
    assert p99_text(step) == "r 11.34 / w 7.11"
    shown = run_show(result)
    assert "r 11.34 / w 7.11" in shown


def _passes(result, read_p99s, write_p99s):
    """`result` as a run of len(read_p99s) passes of its step, each with these per-direction p99s."""
    from dataclasses import replace

    step = result.steps[0]
    passes = tuple(
        replace(step, repetition=i + 1, read_latency=replace(step.read_latency, p99=r),
                write_latency=replace(step.write_latency, p99=w))
        for i, (r, w) in enumerate(zip(read_p99s, write_p99s)))
    return replace(result, steps=passes, profile=replace(result.profile, repeat=len(passes)))


def test_a_step_of_several_passes_shows_its_p99_per_direction_in_show_the_listing_and_compare():
    from labtui.analysis.comparison import compare
    from labtui.analysis.listed_steps import listed_steps
    from labtui.analysis.metrics import READ_P99, WRITE_P99
    from labtui.render.result_tables import p99_cell
    from labtui.results.summaries import ResultSummary

    (result,) = import_file(FIO_MIXED)
    assert result.steps[0].latency.p99 is None
    three = _passes(result, [10.0, 12.0, 14.0], [6.0, 7.0, 8.0])
    # show: the "mean of 3" row has each direction's p99 (mean of the passes'), not "-"
    row = next(line for line in run_show(three).splitlines() if "mean of 3" in line)
    assert "r 12.00 / w 7.00" in row, row
    # the listing (History, the Result screen's step list)
    (listed,) = listed_steps(ResultSummary.of(three, "x.toml"))
    f = listed.figures
    assert p99_cell(f.latency_p99_ms, f.read_p99_ms, f.write_p99_ms) == "r 12.00 / w 7.00"
    # compare: each direction's p99 is compared where there is none of both together
    other = _passes(result, [20.0, 22.0, 24.0], [6.0, 7.0, 8.0])
    (group,) = compare([three, other]).groups
    rows = {row.metric: row for row in group.rows}
    assert rows[READ_P99].figures[0].value == pytest.approx(12.0)
    assert rows[READ_P99].figures[1].value == pytest.approx(22.0)
    assert rows[WRITE_P99].figures[1].value == pytest.approx(7.0)


def run_show(result) -> str:
    import io

    from rich.console import Console

    from labtui.render.result_tables import result_steps_table

    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(result_steps_table(result))
    return console.file.getvalue()


def test_the_linux_ports_block_device_is_the_targets_device():
    (result,) = import_file(LINUX_TEXT)
    assert (result.target.device, result.target.disk) == ("/dev/sdc", "sdc")
    text = LINUX_TEXT.read_text().replace("block device: sdc", "block device: vda")
    (result,) = import_text(text, "vda.txt")
    assert (result.target.device, result.target.disk) == ("/dev/vda", "vda")


@pytest.mark.parametrize("report", ["fio", "diskspd"])
def test_a_run_of_no_time_is_refused_not_saved_as_zero_iops(tmp_path, report):
    if report == "fio":
        data = json.loads(FIO_MIXED.read_text())
        for direction in ("read", "write"):
            data["jobs"][0][direction].update(runtime=0, total_ios=0, io_bytes=0, io_kbytes=0)
        text = json.dumps(data)
    else:
        text = LINUX_TEXT.read_text().replace("test time:         30s", "test time:         0s")
    with pytest.raises(ReportError, match="measured nothing"):
        import_text(text, "zero")


def test_a_job_of_no_time_among_others_fails_its_step():
    data = json.loads((FIXTURES / "fio-json/fio-2.17-legacy-randread+randwrite16k-nj2-libaio.json").read_text())
    first = data["jobs"][0]
    for direction in ("read", "write"):
        first[direction].update(runtime=0)
    (result,) = import_text(json.dumps(data), "half")
    assert [s.status for s in result.steps] == ["failed", "completed"]
    assert "runtime is 0 s" in result.steps[0].error and result.status == "failed"


def test_latency_figures_that_cannot_all_be_true_are_named():
    from labtui.results.imports import latency_contradiction

    # Mean 253 ms, yet 99 % of I/Os within 1.5 ms and the slowest at 10 s: at most 101.5 ms.
    why = latency_contradiction(LatencySummary(mean=253.0, min=0.1, max=10_000.0, p50=0.5, p99=1.5))
    assert why and "253" in why and "at most 101.5" in why
    assert "above the maximum" in latency_contradiction(LatencySummary(mean=253.0, min=0.1, max=10.0))
    assert "p99 3 ms is above max 2 ms" in latency_contradiction(LatencySummary(mean=1.0, min=0.1, max=2.0, p99=3.0))
    assert latency_contradiction(LatencySummary(mean=0.9, min=0.1, max=400.0, p50=0.5, p99=1.5)) is None
    assert latency_contradiction(LatencySummary()) is None


def test_an_edited_report_with_impossible_latency_imports_with_a_warning():
    text = TEXT_L.read_text()
    total_line = next(line for line in text.splitlines() if line.strip().startswith("total:"))
    assert "|" in total_line
    edited = text.replace("    max |      7.990 |     35.257 |     35.257", "    max |      7.990 |     35.257 |     35.257")
    # The total AvgLat of every table: 253 ms against a p99 of 4.7 ms and a max of 35 ms.
    cells = total_line.split("|")
    cells[4] = f"{253.0:>10.3f} "
    edited = edited.replace(total_line, "|".join(cells))
    (result,) = import_text(edited, "edited.txt")
    assert any("contradict" in w and "253" in w for w in result.warnings), result.warnings
    for fixture in report_fixtures():
        for imported in import_file(fixture):
            assert not [w for w in imported.warnings if "contradict" in w], fixture.name


def test_a_report_with_digits_of_another_script_is_refused():
    # DiskSpd writes ASCII digits; Python's \d, str.isdigit and float() also read "٣" as 3, so an
    # edited total line in Arabic-Indic digits imported as if DiskSpd had written it.
    text = TEXT_L.read_text()
    total_line = next(line for line in text.splitlines() if line.strip().startswith("total:"))
    edited = text.replace(total_line, total_line.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")), 1)
    assert edited != text
    with pytest.raises(ReportError, match="incomplete"):
        import_text(edited, "edited.txt")


# --------------------------------------------------------------------------- cut short


@pytest.mark.parametrize("path", [TEXT_L, TEXT_TARGETS, LINUX_TEXT,
                                  FIXTURES / "diskspd-text/diskspd-2.0.17a-rnd4k-rw50-50-F2-o32-L-transcript.txt",
                                  FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-t32-o16-L-D.txt",
                                  FIXTURES / "diskspd-text/diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt"],
                         ids=lambda p: p.name[:30])
def test_a_diskspd_text_report_cut_anywhere_in_its_results_is_refused(path):
    full = path.read_bytes().decode("utf-8-sig").rstrip()
    results_at = full.index("Total IO")
    for end in range(results_at, len(full), max(7, (len(full) - results_at) // 300)):
        with pytest.raises(ReportError):
            import_text(full[:end], path.name)
    assert import_text(full, path.name)  # the whole of it still imports


def test_a_fio_status_stream_cut_in_its_last_report_is_refused():
    text = FIO_STREAM.read_text()
    with pytest.raises(ReportError, match="cut short"):
        import_text(text[: int(len(text) * 0.9)], FIO_STREAM.name)
    assert import_text(text, FIO_STREAM.name)[0].status == "completed"


# --------------------------------------------------------------------------- files that are not reports


@pytest.mark.parametrize("special", ["fifo", "socket", "/dev/zero", "/dev/urandom", "link to /dev/zero"])
def test_only_regular_files_are_read(tmp_path, special):
    if special == "fifo":
        path = tmp_path / "report.json"
        os.mkfifo(path)  # no writer: reading it would wait forever
        expected = "a FIFO"
    elif special == "socket":
        path = tmp_path / "report.json"
        listening = socket.socket(socket.AF_UNIX)
        listening.bind(str(path))  # cannot be opened at all: "No such device or address" said nothing
        listening.close()
        expected = "a socket"
    elif special.startswith("link"):
        path = tmp_path / "report.json"
        path.symlink_to("/dev/zero")
        expected = "a character device"
    else:
        path = Path(special)
        expected = "a character device"
    out = subprocess.run(labtui_cmd("import", str(path)), capture_output=True, text=True, timeout=20)
    assert out.returncode == 2 and f"{path}: is {expected}, not a report file" in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_a_block_device_is_refused_without_reading_it():
    device = next((Path("/dev") / name for name in sorted(os.listdir("/sys/block"))), None)
    if device is None or not device.exists() or not stat.S_ISBLK(device.stat().st_mode):
        pytest.skip("no block device node here")
    with pytest.raises(ReportError, match="is a block device, not a report file"):
        import_file(device)


def test_a_file_whose_size_says_nothing_is_read_only_up_to_the_cap(monkeypatch):
    from labtui.results import imports as importers

    # /proc files are regular files of size 0 that hold kilobytes: the size is no guard.
    maps = Path("/proc/self/maps")
    if not maps.exists() or maps.stat().st_size != 0:
        pytest.skip("no /proc/self/maps of size 0 here")
    monkeypatch.setattr(importers, "MAX_BYTES", 1000)
    with pytest.raises(ReportError, match="more than 1000 bytes is too large"):
        import_file(maps)


# --------------------------------------------------------------------------- escape codes


def test_escape_codes_in_a_report_are_shown_never_obeyed(labtui_home, tmp_path):
    data = json.loads(FIO_MIXED.read_text())
    data["jobs"][0]["jobname"] = "evil\x1b[2J\x1b]8;;http://x\x07name"
    data["jobs"][0]["job options"]["name"] = "evil\x1b[2J\x1b]8;;http://x\x07name"
    report = tmp_path / "evil\x1b[31m.json"
    report.write_text(json.dumps(data))
    out = run("import", str(report))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "evil\\x1b[2J\\x1b]8;;http://x\\x07name" in out.stdout and "evil\\x1b[31m.json" in out.stdout
    (result,) = Store(labtui_home).load_results()[0]
    shown = run("show", result.id)
    assert "\x1b" not in shown.stdout and "evil\\x1b[2J" in shown.stdout
    listed = run("history")
    assert "\x1b" not in listed.stdout


def test_a_result_file_from_elsewhere_is_read_with_its_control_characters_escaped(labtui_home):
    from dataclasses import replace

    from factories import make_result

    store = Store(labtui_home)
    result = make_result("20240501-103005-aaaa")
    step = replace(result.steps[0], step=replace(result.steps[0].step, name="step\x1b[8m\x85hidden"))
    store.save_result(replace(result, steps=(step,) + result.steps[1:], error="boom\rover\u202eeman",
                              profile=replace(result.profile, title="t\x1bitle")))
    (back,) = store.load_results()[0]
    assert back.steps[0].name == "step\\x1b[8m\\x85hidden" and back.error == "boom\\x0dover\\u202eeman"
    assert back.profile.title == "t\\x1bitle"


def test_a_drives_smartctl_output_is_refused_as_what_it_is(tmp_path, labtui_home):
    """The fixtures hold smartctl -j outputs beside the reports: importing one says what it is, in one line."""
    for fixture in sorted((FIXTURES / "smartctl-json").glob("*.json")):
        out = subprocess.run(labtui_cmd("import", str(fixture)), capture_output=True, text=True)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "smartctl's output (a drive's health), not a benchmark report" in out.stderr, out.stderr
    assert not (labtui_home / "results").exists() or not list((labtui_home / "results").iterdir())
