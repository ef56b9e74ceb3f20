"""A kept fio job's options read back (labtui.engine.fio.workload): fio's own sizes and times, its workload."""

from __future__ import annotations

import json

from conftest import FIXTURES
from labtui.engine.fio import workload


def test_option_parsing():
    assert workload.fio_size("128k,64k") == 131072 and workload.fio_size("4k-16k") == 4096 and workload.fio_size("1m") == 2**20
    assert workload.fio_size("100%%") is None and workload.fio_size("") is None
    assert workload.fio_seconds("5m") == 300 and workload.fio_seconds("10") == 10 and workload.fio_seconds("500ms") == 0.5
    assert workload.fio_seconds("soon") is None
    # fio reads ASCII digits only; "٤k" and "３０" are not its sizes or times.
    assert workload.fio_size("٤k") is None and workload.fio_seconds("３０") is None


def test_a_kept_jobs_step_command_line_and_target_come_from_its_options():
    """A real fio 3.16 report (8 jobs of randrw 4k at iodepth 8, direct, 60 s): what it ran, in labtui's terms."""
    report = json.loads((FIXTURES / "fio-json/fio-3.16-randrw4k-qd8-nj8-fsync-libaio.json").read_text())
    job = report["jobs"][0]
    step = workload.job_workload(job, report, measured_seconds=60.149)
    assert (step.name, step.pattern, step.write_percent, step.block_size) == ("iotest", "random", 50, 4096)
    assert (step.threads, step.outstanding, step.duration, step.cache) == (8, 8, 60.0, "off")
    assert not step.write_through  # fsync=10000 is a flush every 10,000 writes, not sync=1
    line = workload.job_command_line(job, report)
    assert line.startswith("fio --name=iotest ") and " --rw=randrw " in line and " --iodepth=8 " in line
    assert workload.job_target(job, report) == "test.bin"  # the file named, not the directory around it


def test_a_mix_says_its_write_share_by_rwmixread_else_rwmixwrite_else_fios_half():
    def step(**options: str):
        job = {"jobname": "j", "job options": {"rw": "randrw", "bs": "4k", **options}}
        return workload.job_workload(job, {}, measured_seconds=1.0)

    assert step(rwmixread="70").write_percent == 30
    assert step(rwmixwrite="10").write_percent == 10
    assert step().write_percent == 50
    assert step(rwmixread="170").write_percent == 50  # not a share: fio's default
