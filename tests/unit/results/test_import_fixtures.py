"""Every real DiskSpd and fio output in tests/fixtures imports, with the figures the file prints.

The expected numbers below were copied from the files themselves (see tests/fixtures/SOURCES.md):
fio's own `iops`, `bw_bytes` (or `bw` in KiB/s where 3.1 and 2.x have no bw_bytes), the mean and
the 99th percentile of the latency block labtui uses; DiskSpd's `total:` lines of the Read IO,
Write IO and Total IO tables, its `99th` Total row; in XML, the per-thread counts summed over
`TestTimeSeconds` and the `<Latency>` figures. Each import must match them within 0.5 %, or within
half the last printed digit where the file rounds harder than that (DiskSpd's "0.79" MiB/s).
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES, report_fixtures
from labtui.results.imports import import_file
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
