"""Every real DiskSpd and fio output in tests/fixtures imports, with the figures the file prints.

The expected numbers below were copied from the files themselves (see tests/fixtures/SOURCES.md):
fio's own `iops`, `bw_bytes` (or `bw` in KiB/s where 3.1 and 2.x have no bw_bytes), the mean and
the 99th percentile of the latency block labtui uses; DiskSpd's `total:` lines of the Read IO,
Write IO and Total IO tables, its `99th` Total row; in XML, the per-thread counts summed over
`TestTimeSeconds` and the `<Latency>` figures. Each import must match them within 0.5 %, or within
half the last printed digit where the file rounds harder than that (DiskSpd's "0.79" MiB/s).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import FIXTURES, report_fixtures
from labtui.errors import LabtuiError, ReportError
from labtui.model.profile import STATUSES
from labtui.model.result import LatencySummary, RunResult
from labtui.results.imports import decode, import_file, import_text
from labtui.results.result_file import result_from_toml, result_to_toml

# file -> one row per imported result: (host, read IOPS, write IOPS, MiB/s, [decimals printed],
#          latency summary used, mean ms, p99 ms, status)
FIO = {
    "fio-json/fio-2.17-legacy-randread+randwrite16k-nj2-libaio.json": [
        (None, 8086.673998, 0.0, 129386 / 1024, "read", 0.238357679, 1.352, "completed"),
    ],
    "fio-json/fio-3.1-randrw4k-qd4-nj16-libaio-mdraid.json": [
        (None, 76135.162161, 76191.160295, (304540 + 304764) / 1024, "read", 0.438098075076, 1.646592, "completed"),
    ],
    "fio-json/fio-3.16-randrw4k-qd8-nj8-fsync-libaio.json": [
        (None, 317.511513, 322.066867, (1300527 + 1319185) / 2**20, "read", 70.542578167033, 333.447168, "completed"),
    ],
    "fio-json/fio-3.26-readwrite256k-rw70-30-qd64-2files-libaio.json": [
        (None, 569.699415, 256.606819, (149343283 + 67267937) / 2**20, "read", 76.331646873584, 104.333312, "completed"),
    ],
    "fio-json/fio-3.26-write256k-qd64-2files-libaio.json": [
        (None, 0.0, 734.70852, 192599430 / 2**20, "write", 87.015125958496, 114.819072, "completed"),
    ],
    "fio-json/fio-3.33-error22-write1m-stderr-prefix.json": [
        (None, 0.0, 0.0, 0.0, "write", None, None, "failed"),
    ],
    "fio-json/fio-3.33-rw4k-qd16-sigint-prefix.json": [
        (None, 7662.030309, 39338.066766, (31383676 + 161128721) / 2**20, "read", 7.881155058386, 35.913728, "aborted"),
    ],
    "fio-json/fio-3.36-randrw128k-qd1-psync-default.json": [
        (None, 401.019796, 409.818036, (52562466 + 53715669) / 2**20, "read", 1.473085712541, 11.337728, "completed"),
    ],
    "fio-json/fio-3.40-readwrite4k-qd1-psync-sync.json": [
        (None, 10084.191581, 10056.894311, (41304848 + 41193039) / 2**20, "read", 0.046715533653, 0.140288, "completed"),
    ],
    "fio-json/fio-3.43-clientserver-1client-randread4k-psync.json": [
        ("127.0.0.1:18801", 2161519.0, 0.0, 8853581824 / 2**20, "read", 0.000371170459, 0.001004, "completed"),
    ],
    "fio-json/fio-3.43-clientserver-2clients-randread4k-psync.json": [
        ("127.0.0.1:18802", 1110589.0, 0.0, 4548972544 / 2**20, "read", 0.000799194842, 0.002008, "completed"),
        ("127.0.0.1:18801", 1113931.0, 0.0, 4562661376 / 2**20, "read", 0.000797741512, 0.002008, "completed"),
        ("All clients", 2224520.0, 0.0, 9111633920 / 2**20, "read", 0.000798467085, 0.002008, "completed"),
    ],
    # Client mode with --status-interval: each server's interval reports are one job's (the last
    # final, read as samples), not jobs of their own; "All clients" sums the first interval only.
    "fio-json/fio-3.33-client-2servers-interval.json": [
        ("127.0.0.5:18765", 8528.414756, 3618.644068, 49754352 / 2**20, "read",
         0.108915930559, 0.27648, "completed"),
        ("127.0.0.6:18766", 8613.080379, 3657.014478, 50258308 / 2**20, "read",
         0.108560100684, 0.268288, "completed"),
        ("All clients", 19432.291667, 8388.020833, 108.6273193359375, "read", 0.094290188823, None, "completed"),
    ],
    "fio-json/fio-3.6-randread4k-qd8-nj16-libaio-krbd.json": [
        (None, 26772.522748, 0.0, 109660253 / 2**20, "read", 4.756295723016, 10.551296, "completed"),
    ],
    "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json": [
        (None, 26362.273756, 11314.479638, (107984506 + 46346425) / 2**20, "read", 0.197045172869, 0.31744, "completed"),
    ],
}
# DiskSpd: (read I/O per s, write I/O per s, Total MiB/s, decimals of the MiB/s, mean ms, 99th ms)
DISKSPD = {
    "diskspd-text/diskspd-2.0.17a-rnd4k-rw50-50-F2-o32-L-transcript.txt": (202.49, 201.17, 1.58, 2, 158.382, 824.992),
    "diskspd-text/diskspd-2.0.21a-rnd4k-rw70-30-L-D-noheader.txt": (834.98, 354.05, 4.64, 2, 0.840, 4.713),
    "diskspd-text/diskspd-2.0.21a-rnd8k-write-5targets-t23-o22-L-D-multigroup.txt": (0.0, 330118.77, 2579.05, 2, 7.681, 368.150),
    "diskspd-text/diskspd-2.0.21a-rnd8k-write-t32-o16-L-D.txt": (0.0, 76458.71, 597.33, 2, 6.696, 57.658),
    "diskspd-text/diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt": (0.0, 508.09, 1.98, 2, 125.800, 161.752),
    "diskspd-text/diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt": (24902.33, 0.0, 1556.40, 2, None, None),
    # XML: counts summed by hand over TestTimeSeconds
    "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml": (37162 / 120.01, 15753 / 120.01,
                                                          (152215552 + 64524288) / 120.01 / 2**20, 9, 2.266, 19.270),
    "diskspd-xml/diskspd-2.0.21a-seq64k-read-t4-o2-nolatency.xml":
        (90970 / 30.02, 0.0, 5961809920 / 30.02 / 2**20, 9, None, None),
    "diskspd-xml/diskspd-2.1.0dev-seq1m-si-2targets-rw70-30-L-D.xml":
        (4835 / 30.0, 2136 / 30.0, (5069864960 + 2239758336) / 30.0 / 2**20, 9, 137.932, 1202.421),
    "diskspd-xml/diskspd-2.2.0-rnd4k-q32t16-read-nolatency.xml": (896544 / 5.01, 0.0, 3672244224 / 5.01 / 2**20, 9, None, None),
    "diskspd-xml/diskspd-2.2.0-seq1m-q8t1-write-nolatency.xml": (0.0, 10425 / 5.0, 10931404800 / 5.0 / 2**20, 9, None, None),
}


def close(ours: float | None, printed: float | None, decimals: int = 9) -> bool:
    if printed is None or ours is None:
        return ours is printed
    return abs(ours - printed) <= max(0.005 * abs(printed), 0.5 * 10**-decimals)


def test_every_fixture_file_has_expected_figures():
    files = {str(p.relative_to(FIXTURES)) for p in report_fixtures()}
    assert files == set(FIO) | set(DISKSPD)


def _round_trip(result):
    assert result_from_toml(result_to_toml(result)) == result
    assert result.source == "import"


@pytest.mark.parametrize("name", sorted(FIO))
def test_fio_fixture_totals(name):
    results = import_file(FIXTURES / name)
    assert len(results) == len(FIO[name])
    for result, (host, r_iops, w_iops, mib, side, mean, p99, status) in zip(results, FIO[name]):
        _round_trip(result)
        assert result.engine.name == "fio" and result.source_file == name.split("/")[1]
        assert result.host.name == host
        assert result.status == status
        step = result.steps[0]
        assert close(step.read.iops, r_iops) and close(step.write.iops, w_iops)
        assert close(step.total.mib_s, mib, 4)
        latency = step.read_latency if side == "read" else step.write_latency
        assert close(latency.mean, mean) and close(latency.p99, p99)


@pytest.mark.parametrize("name", sorted(FIO))
def test_every_figure_of_a_fio_step_comes_from_one_count(name):
    """fio counts total_ios as I/Os are issued and io_bytes as they complete: a ramp's in-flight I/Os made
    14,948 IOPS x 64 KiB read 934.3 MiB/s beside 935.1. Every step (and interval) counts completed I/Os,
    so bytes = I/Os x block size where the job's I/Os are one size; where not, the result says so."""
    for result in import_file(FIXTURES / name):
        for step in result.steps:
            size = step.step.block_size
            for stats in (step.read, step.write):
                if stats.bytes != stats.ios * size:
                    assert any("are not all one size" in w for w in result.warnings), (name, step.name)
            for sample in step.samples:
                assert sample.read_bytes == sample.read_ios * size and sample.write_bytes == sample.write_ios * size


def test_the_stream_fixture_counts_the_ios_that_completed_not_those_issued():
    """Its final report: read total_ios 93,217 but io_bytes 381,833,216 = 93,221 x 4 KiB = its latency's N."""
    (result,) = import_file(FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json")
    step = result.steps[0]
    assert (step.read.ios, step.read.bytes) == (93_221, 381_833_216)
    assert (step.write.ios, step.write.bytes) == (40_010, 163_880_960)
    assert not any("one size" in w for w in result.warnings)


def test_a_job_of_mixed_block_sizes_says_its_iops_and_mib_s_are_separate_counts():
    import json

    from labtui.engine.fio import parse as fr, workload
    from labtui.results.imports import import_text

    report = json.loads((FIXTURES / "fio-json/fio-3.36-randrw128k-qd1-psync-default.json").read_text())
    job = report["jobs"][0]
    job["job options"] = {**job.get("job options", {}), "bsrange": "4k-128k"}
    assert workload.block_sizes(job, report) == fr.NO_SIZES
    assert workload.block_sizes({"job options": {"bs": "128k,64k"}}, {}) == (131072, 65536)
    assert workload.block_sizes({"job options": {}}, {}) == (4096, 4096)  # fio's default
    job["read"]["io_bytes"] += 512  # a short I/O's worth
    (result,) = import_text(json.dumps(report), "mixed.json")
    assert any("read and write I/Os are not all one size" in w and "IOPS x block size is not its MiB/s" in w
               for w in result.warnings), result.warnings
    assert result.steps[0].read.ios == job["read"]["lat_ns"]["N"]  # the completed ones, by their latency


@pytest.mark.parametrize("name", sorted(DISKSPD))
def test_diskspd_fixture_totals(name):
    (result,) = import_file(FIXTURES / name)
    _round_trip(result)
    r_iops, w_iops, mib, decimals, mean, p99 = DISKSPD[name]
    (step,) = result.steps
    assert result.engine.name == "diskspd" and result.status == "completed"
    assert close(step.read.iops, r_iops, 2) and close(step.write.iops, w_iops, 2)
    assert close(step.total.mib_s, mib, decimals)
    assert close(step.latency.mean, mean, 3) and close(step.latency.p99, p99, 3)


def test_fio_legacy_units_and_two_jobs():
    (result,) = import_file(FIXTURES / "fio-json/fio-2.17-legacy-randread+randwrite16k-nj2-libaio.json")
    read, write = result.steps
    assert read.read.bytes == 1294256 * 1024 and read.read.ios == 80891  # fio 2.x io_bytes is KiB
    assert write.write.ios == 24580 and close(write.write_latency.mean, 0.800193694)
    assert read.step.label() == "RND16K Q1T2 R" and write.step.label() == "RND16K Q1T2 W"
    assert any("2.17" in w for w in result.warnings)


def test_fio_failed_job_keeps_the_reason():
    (result,) = import_file(FIXTURES / "fio-json/fio-3.33-error22-write1m-stderr-prefix.json")
    assert result.status == "failed" and result.steps[0].status == "failed"
    assert "error 22" in result.error and "time_based requires a runtime" in result.error


def test_fio_interrupted_run_is_aborted():
    (result,) = import_file(FIXTURES / "fio-json/fio-3.33-rw4k-qd16-sigint-prefix.json")
    assert result.status == "aborted" and "signal 2" in result.error
    step = result.steps[0].step
    assert (step.pattern, step.write_percent, step.outstanding, step.cache, step.duration) == (
        "sequential", 50, 16, "off", 300.0)  # rw=rw, runtime=5m from the global options


def test_fio_duplicate_filename_keeps_both_files():
    (result,) = import_file(FIXTURES / "fio-json/fio-3.26-readwrite256k-rw70-30-qd64-2files-libaio.json")
    assert result.target.path.count("fio-test.dat") == 2
    assert result.steps[0].step.write_percent == 30 and result.steps[0].step.block_size == 256 * 1024
    assert "--filename=" in result.steps[0].command_line


def test_fio_truncated_job_name_uses_the_full_name():
    (result,) = import_file(FIXTURES / "fio-json/fio-3.40-readwrite4k-qd1-psync-sync.json")
    assert result.steps[0].name.endswith("date:2025-07-08T18:45:45Z")


def test_fio_percentiles_come_from_one_latency_block():
    (result,) = import_file(FIXTURES / "fio-json/fio-3.36-randrw128k-qd1-psync-default.json")
    read = result.steps[0].read_latency
    assert close(read.min, 0.439107) and close(read.max, 324.223242)  # clat_ns, like its percentiles
    assert any("completion latency (clat_ns)" in w for w in result.warnings)
    # Mixed read/write without json+ histograms: the combined mean is exact, percentiles unknown.
    assert close(result.steps[0].latency.mean, (1.473085712541 * 4011 + 0.961921728226 * 4099) / 8110)
    assert result.steps[0].latency.p99 is None


def test_fio_status_stream_gives_the_final_report_and_measured_samples():
    (result,) = import_file(FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json")
    step = result.steps[0]
    assert step.step.warmup == 1.0 and step.step.duration == 3.0
    samples = step.samples
    # The first report is inside ramp_time (no latency recorded): not a measured sample.
    assert len(samples) == 4 and samples[0].t == 1.0
    assert sum(s.read_ios for s in samples) == step.read.ios
    assert sum(s.write_bytes for s in samples) == step.write.bytes
    assert abs(sum(s.seconds for s in samples) - step.read.seconds) < 1e-6
    # json+ histograms make the combined read+write percentiles exact.
    assert step.latency.p99 is not None and step.read_latency.p99 <= step.latency.p99 <= step.write_latency.p99 + 1


def test_diskspd_text_variants():
    transcript = import_file(FIXTURES / "diskspd-text/diskspd-2.0.17a-rnd4k-rw50-50-F2-o32-L-transcript.txt")[0]
    assert transcript.engine.command_line.endswith("-r -d600 C:\\testfile.foo")
    assert transcript.steps[0].step.threads == 2 and transcript.profile.file_size == 8 * 1024**3
    doubled = import_file(FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-t32-o16-L-D.txt")[0]
    assert doubled.target.path == "D:\\diskspd-test.dat" and "\\\\" not in doubled.engine.command_line
    multi = import_file(FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-5targets-t23-o22-L-D-multigroup.txt")[0]
    assert multi.target.path.count("diskspd-test.dat") == 5 and multi.host.cpu_count == 112
    assert multi.steps[0].cpu_percent == 39.69 and any("5 targets" in w for w in multi.warnings)
    linux = import_file(FIXTURES / "diskspd-text/diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt")[0]
    assert linux.host.os == "Linux" and linux.steps[0].step.label() == "RND64K Q128T4 R"
    assert linux.steps[0].step.cache == "off" and not linux.steps[0].step.latency


def test_diskspd_xml_samples_and_versions():
    xml = import_file(FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml")[0]
    assert xml.engine.version == "2.0.21a" and xml.host.name == "QuickTest2"
    samples = xml.steps[0].samples
    assert len(samples) == 120 and (samples[0].read_ios, samples[0].write_ios) == (332, 119)
    assert samples[0].read_bytes == 332 * 4096
    two = import_file(FIXTURES / "diskspd-xml/diskspd-2.1.0dev-seq1m-si-2targets-rw70-30-L-D.xml")[0]
    assert two.engine.version == "2.1.0-dev" and two.steps[0].step.pattern == "sequential"
    crlf = import_file(FIXTURES / "diskspd-xml/diskspd-2.2.0-rnd4k-q32t16-read-nolatency.xml")[0]
    assert crlf.steps[0].step.label() == "RND4K Q32T16 R" and not crlf.steps[0].latency.measured


def test_a_report_in_utf16_with_bom_imports(tmp_path):
    source = FIXTURES / "diskspd-text/diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt"
    copy = tmp_path / "powershell.txt"
    copy.write_bytes(source.read_text(encoding="utf-8").encode("utf-16"))
    (result,) = import_file(copy)
    (original,) = import_file(source)
    assert result.steps == original.steps and result.started == original.started


# Property tests: every importer, fed mutated real reports or random bytes, either returns valid
# results (which survive a round trip through the result file format) or raises labtui's own error
# with a message — never any other exception.
SOURCES = report_fixtures()
FIO_NAMES = [p.name for p in SOURCES if p.suffix == ".json"]
CONTENT = {p.name: p.read_bytes() for p in SOURCES}
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(data: bytes) -> None:
    try:
        results = import_text(decode(data), "mutated.txt")
    except LabtuiError as exc:
        assert str(exc).strip(), "an error without a message"
        return
    assert results
    for result in results:
        assert isinstance(result, RunResult) and result.status in STATUSES and result.steps
        assert result_from_toml(result_to_toml(result)) == result


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.lists(st.integers(0, 5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths(value, prefix=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield prefix + (i,)
            yield from _paths(item, prefix + (i,))


def _report(name: str) -> dict:
    text = CONTENT[name].decode("utf-8")
    start = max(i for i in range(len(text)) if text.startswith("{", i) and (i == 0 or text[i - 1] == "\n"))
    return json.loads(text[start:])


REPORTS = {name: _report(name) for name in FIO_NAMES}
PATHS = {name: list(_paths(report)) for name, report in REPORTS.items()}


@SETTINGS
@given(st.binary(max_size=4000))
def test_random_bytes(data):
    check(data)


@SETTINGS
@given(st.sampled_from(sorted(CONTENT)), st.data())
def test_mutated_reports(name, data):
    content = bytearray(CONTENT[name])
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(content)))
        end = min(len(content), start + data.draw(st.integers(0, 400)))
        op = data.draw(st.sampled_from(["delete", "replace", "insert", "truncate", "duplicate", "digits"]))
        if op == "delete":
            del content[start:end]
        elif op == "replace":
            content[start:end] = data.draw(st.binary(max_size=50))
        elif op == "insert":
            content[start:start] = data.draw(st.sampled_from(
                [b"{", b"}", b"\"jobs\": [", b"<Results>", b"total:", b"|", b"N/A", b"-1", b"1e999", b"\xef\xbb\xbf",
                 b"\r\n", b"\t", b"999999999999999999999999", b"NaN", b"Results for timespan 1:\n"]))
        elif op == "truncate":
            del content[start:]
        elif op == "duplicate":
            content[start:start] = content[start:end]
        else:  # change the digits of numbers, where most parsing happens
            content[start:end] = bytes(b if not chr(b).isdigit() else data.draw(st.sampled_from(b"0123456789-."))
                                       for b in content[start:end])
    check(bytes(content))


@SETTINGS
@given(st.sampled_from(FIO_NAMES), st.data())
def test_fio_values_of_the_wrong_kind(name, data):
    report = json.loads(json.dumps(REPORTS[name]))
    for _ in range(data.draw(st.integers(1, 5))):
        path = data.draw(st.sampled_from(PATHS[name]))
        target = report
        try:
            for key in path[:-1]:
                target = target[key]
            if data.draw(st.booleans()) and isinstance(target, dict):
                target.pop(path[-1], None)
            else:
                target[path[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(report, allow_nan=True, default=str)
    check(text.encode())


# Import keeps only what a report can back: one result per file, figures that agree with each
# other, no report cut short, no file that is not a report, nothing printed raw from it.
FIO_MIXED = FIXTURES / "fio-json/fio-3.36-randrw128k-qd1-psync-default.json"
FIO_TWO_FILES = FIXTURES / "fio-json/fio-3.26-readwrite256k-rw70-30-qd64-2files-libaio.json"
FIO_STREAM = FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json"
LINUX_TEXT = FIXTURES / "diskspd-text/diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt"
TEXT_L = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd4k-rw70-30-L-D-noheader.txt"
TEXT_TARGETS = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-5targets-t23-o22-L-D-multigroup.txt"


def _passes(result, read_p99s, write_p99s):
    """`result` as a run of len(read_p99s) passes of its step, each with these per-direction p99s."""
    from dataclasses import replace

    step = result.steps[0]
    passes = tuple(
        replace(step, repetition=i + 1, read_latency=replace(step.read_latency, p99=r),
                write_latency=replace(step.write_latency, p99=w))
        for i, (r, w) in enumerate(zip(read_p99s, write_p99s)))
    return replace(result, steps=passes, profile=replace(result.profile, repeat=len(passes)))


def run_show(result) -> str:
    import io

    from rich.console import Console

    from labtui.render.result_tables import result_steps_table

    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(result_steps_table(result))
    return console.file.getvalue()


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


CLIENT = FIXTURES / "fio-json" / "fio-3.43-clientserver-1client-randread4k-psync.json"


@pytest.mark.parametrize("groupid", [[], {}, [0], {"a": 1}], ids=["[]", "{}", "[0]", "dict"])
def test_a_client_report_whose_groupid_is_no_number_imports_or_says_why(groupid):
    """fio's client mode keys a job's interval reports by name and groupid: a crafted report's `"groupid": []`
    ended `labtui import` with "internal error: TypeError: unhashable type: 'list'" (hypothesis found it)."""
    data = json.loads(CLIENT.read_text())
    for job in data["client_stats"]:
        job["groupid"] = groupid
    try:
        results = import_text(json.dumps(data), "crafted.json")
    except LabtuiError as exc:
        assert str(exc).strip()
    else:
        assert results and all(r.steps for r in results)
