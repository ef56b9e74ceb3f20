"""The seed blog post's comparison (context/seed-blog-post.txt) as labtui results: its DiskSpd figures."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from labtui.model.profile import Profile, Step
from labtui.model.result import EngineInfo, RunResult
from synthetic import HOST, TARGET, step_result


def seed_results() -> list[RunResult]:
    """The seed post's DiskSpd figures (-r -t8 -o8 -b64K -d60 -Sh) for the two M.2 adapters, as results."""
    read = Step("Read 64K random 60s", block_size=65536, threads=8, outstanding=8, duration=60.0, warmup=5.0)
    write = replace(read, name="Write 64K random 60s", write_percent=100)
    profile = Profile("configmgr-sql-quick", title="ConfigMgr / SQL lab workload (quick)", file_size=20 * 1024**3,
                      steps=(read, write))
    target = replace(TARGET, path="D:\\", device=None, disk=None, serial=None, firmware=None, pcie_speed=None,
                     pcie_width=None, filesystem="NTFS", mount_point="D:\\")
    host = replace(HOST, name="HP-Z8-G4", os="Windows 11", kernel=None)
    out = []
    for rid, adapter, minute, (r_iops, w_iops) in (("startech", "StarTech PEX4M2E1", 0, (53_859, 52_319)),
                                                    ("hp", "HP 933576-001", 30, (54_293, 52_321))):
        started = datetime(2023, 3, 1, 10, minute, tzinfo=UTC)
        steps = (step_result(read, r_iops, cpu=None), step_result(write, w_iops, cpu=None))
        steps = tuple(replace(s, latency=type(s.latency)(), read_latency=type(s.latency)(),
                              write_latency=type(s.latency)()) for s in steps)  # the post gives no latency
        out.append(RunResult(id=rid, status="completed", started=started, ended=started, host=host,
                             target=target, engine=EngineInfo("diskspd", "2.1"), profile=profile, steps=steps,
                             tags=(adapter,)))
    return out
