"""A result as `--json` prints it (labtui.render.result_json), on synthetic results: stable keys, the rates derived
from the counts, null where a figure does not exist (a command step's IOPS, a step that never measured)."""

from __future__ import annotations

import json
from dataclasses import replace

from labtui.model.profile import Step
from labtui.model.result import DirectionStats, StepResult
from labtui.render.result_json import result_to_json
from synthetic import READ, WRITE, run_result


def test_the_rates_are_the_counts_over_the_seconds_and_it_is_plain_json():
    result = run_result("20261206-101500-aaaa", {READ: [50_000.0], WRITE: [20_000.0]}, tags=("adapter-a",))
    said = result_to_json(result)
    assert json.loads(json.dumps(said)) == said  # nothing but JSON's types
    assert [said[k] for k in ("id", "status", "tags")] == ["20261206-101500-aaaa", "completed", ["adapter-a"]]
    assert said["started"] == result.started.isoformat() and said["readback"] is None
    for step, entry in zip(result.steps, said["steps"], strict=True):
        assert entry["name"] == step.name and entry["kind"] == "io" and entry["workload"]["block_size"] == "64KiB"
        total = entry["total"]
        assert total["iops"] == total["ios"] / total["seconds"] == step.total.iops
        assert total["mib_s"] == total["bytes"] / total["seconds"] / 2**20
        assert set(entry["latency_ms"]) == {"mean", "min", "p50", "p90", "p95", "p99", "p999", "p9999", "max"}
    assert "verify" not in said["steps"][0] and "drive" not in said["steps"][0]  # only where there is one


def test_a_command_steps_disk_requests_have_no_iops_and_a_step_that_never_measured_no_rates():
    cmd = StepResult(step=Step("Extract", kind="command", command="zpaq x a.zpaq", warmup=0.0), wall_seconds=12.5,
                     exit_status=0, read=DirectionStats(ios=800, bytes=800 * 131072, seconds=12.5))
    failed = StepResult(step=READ, status="failed", error="no such file")
    result = replace(run_result("20261206-101500-bbbb", {READ: [1000.0]}), steps=(cmd, failed))
    command, never = result_to_json(result)["steps"]
    assert command["read"]["ios"] == 800 and command["read"]["iops"] is None and command["read"]["mib_s"] == 8.0
    assert (command["wall_seconds"], command["exit_status"]) == (12.5, 0) and "output_tail" not in command
    assert never["total"]["iops"] is None and never["total"]["mib_s"] is None and never["error"] == "no such file"
