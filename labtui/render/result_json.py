"""A result as labtui's `--json` prints it (run, show, import): stable keys, the rates derived from the counts.

What scripts read (the manual's docs/cli.md, "--json", lists its keys). Written out, never read back (the result file is the
TOML of labtui.results.result_file).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from labtui.analysis.readback import readback_answer
from labtui.model.result import DirectionStats, LatencySummary, Precondition, Preparation, RunResult, SteadyState
from labtui.render.drive import drive_json, has_drive
from labtui.results.profile_file import step_to_table
from labtui.results.result_file import dataclass_to_plain


def result_to_json(result: RunResult) -> dict[str, Any]:
    """The `--json` form of a result (docs/cli.md, "--json"): stable keys with the rates derived from the counts."""

    def direction(stats: DirectionStats, is_io: bool, measured: bool = True) -> dict[str, Any]:
        # A command step's ios are the disk's requests after the kernel merged them (every
        # process's): counted, but their rate is no IOPS beside an I/O step's, so it is null. A step
        # that failed before any I/O has no rates at all (null, not 0.0): StepResult.has_figures.
        return {
            "ios": stats.ios,
            "bytes": stats.bytes,
            "seconds": stats.seconds,
            "iops": stats.iops if is_io and measured else None,
            "mib_s": stats.mib_s if measured else None,
        }

    def latency(lat: LatencySummary) -> dict[str, Any]:
        return {k: getattr(lat, k) for k in ("mean", "min", "p50", "p90", "p95", "p99", "p999", "p9999", "max")}

    steps = []
    for s in result.steps:
        entry: dict[str, Any] = {
            "name": s.name,
            "label": s.step.label(),
            "kind": s.step.kind,
            "repetition": s.repetition,
            "status": s.status,
            "workload": step_to_table(s.step),
            "read": direction(s.read, s.step.is_io, s.has_figures),
            "write": direction(s.write, s.step.is_io, s.has_figures),
            "total": direction(s.total, s.step.is_io, s.has_figures),
            "latency_ms": latency(s.latency),
            "read_latency_ms": latency(s.read_latency),
            "write_latency_ms": latency(s.write_latency),
            "cpu_percent": s.cpu_percent,
            "cpu_seconds": s.cpu_seconds,
            "engine_cpu_percent": s.engine_cpu_percent,
            "engine_bound": s.engine_bound,
            "backend": s.backend,
            "command_line": s.command_line,
            "samples": len(s.samples),
        }
        if s.steady_state is not None:
            entry["steady_state"] = steady_state_json(s.steady_state)
        if s.verify is not None:
            entry["verify"] = dataclass_to_plain(s.verify) | {"summary": s.verify.summary()}
        if has_drive([s]):
            entry["drive"] = drive_json(s)
        if s.error:
            entry["error"] = s.error
        if s.step.kind == "command":
            entry["wall_seconds"] = s.wall_seconds
            entry["exit_status"] = s.exit_status
            entry["peak_mib_s"] = s.peak_mib_s
            if s.output_tail:
                entry["output_tail"] = s.output_tail
        steps.append(entry)
    return {
        "schema": result.schema,
        "id": result.id,
        "status": result.status,
        "error": result.error,
        "started": result.started.isoformat(),
        "ended": result.ended.isoformat(),
        "source": result.source,
        "source_file": result.source_file,
        "source_digest": result.source_digest,
        "profile": {"name": result.profile.name, "title": result.profile.title},
        "engine": _strip_none(dataclass_to_plain(result.engine)),
        "host": dataclass_to_plain(result.host),
        "target": dataclass_to_plain(result.target) | {"pcie_link": result.target.pcie_link},
        "tags": list(result.tags),
        "params": dict(result.params),
        "warnings": list(result.warnings),
        "preparation": _preparation_json(result.preparation),
        "precondition": _precondition_json(result.precondition),
        "steps": steps,
        "readback": readback_answer(result),  # a verified run's plain answer (None: it verified nothing)
    }


def _preparation_json(p: Preparation | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"bytes": p.bytes, "seconds": p.seconds, "mib_s": p.mib_s, "direct": p.direct}


def steady_state_json(state: SteadyState) -> dict[str, Any]:
    """A steady-state step's record: every field (None ones too: a script tests `mean is null`), and its verdict."""
    data = {f.name: getattr(state, f.name) for f in fields(state) if f.name != "criteria"}
    data["rounds"] = list(state.rounds)
    data["window_figures"] = list(state.window_figures)
    data["criteria"] = [{f.name: getattr(c, f.name) for f in fields(c)} for c in state.criteria]
    data["verdict"] = state.verdict
    return data


def _precondition_json(p: Precondition | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"passes": p.passes, "bytes": p.bytes, "seconds": p.seconds, "pass_seconds": list(p.pass_seconds),
            "mib_s": p.mib_s, "direct": p.direct}


def _strip_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}
