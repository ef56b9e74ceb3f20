"""The plain answer of a run that verified its data: did every block read back as written, did the link
hold, did the PCIe error counters stay still? One line a lab person acts on after a swap:

    All 16 GiB read back as written; link x4 16 GT/s as before; no PCIe errors

It says only what the result holds: the verified steps' checks (labtui.model.verification), the
drive's link and AER counters read before and after each step (labtui.analysis.drive_run).
"""

from __future__ import annotations

from labtui.analysis import drive_run
from labtui.model.result import RunResult


def data_words(result: RunResult) -> str | None:
    """What the verified reads found, as the answer's first clause; None: the run verified nothing."""
    facts = result.read_back()
    return facts.words(result.id) if facts is not None else None


def link_words(result: RunResult) -> str:
    """"link x4 16 GT/s as before", "link changed: 16 GT/s x4 → 8 GT/s x2", or that it was not read."""
    seen = drive_run.links(result)
    if not seen:
        return "no PCIe link to read (not a PCIe drive, or the kernel does not say)"
    first = seen[0]
    changed = drive_run.link_changed(result)
    if changed is None and drive_run.same_link(seen[-1], first):
        speed, width = first
        return f"link x{width} {speed:g} GT/s as before" if speed else f"link x{width} as before"
    return f"the link changed during the run: {changed or f'{drive_run.link_text(first)} → {drive_run.link_text(seen[-1])}'}"


def error_words(result: RunResult) -> str:
    errors = drive_run.aer_errors(result)
    if errors is None:
        return "PCIe errors not counted (the kernel keeps no AER counters for this drive)"
    if errors == 0:
        return "no PCIe errors"
    return f"{errors} PCIe error{'s' if errors != 1 else ''} (AER) counted during the run"


def readback_answer(result: RunResult) -> str | None:
    """The one line for a run with verified steps (None: it had none)."""
    data = data_words(result)
    if data is None:
        return None
    if not drive_run.links(result) and drive_run.aer_errors(result) is None:
        return f"{data}; not a PCIe drive: no link or PCIe errors to read"
    return "; ".join((data, link_words(result), error_words(result)))
