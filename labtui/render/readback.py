"""A verified run as people read it: the one-line answer, then each block that did not read back as
written (its offset, what went wrong, the first bytes that differ), under the step that read it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.style import StyleType
from rich.table import Table
from rich.text import Text

from labtui.analysis.readback import readback_answer
from labtui.model.result import RunResult, StepResult

SHOWN = 20  # blocks listed per step here; the result keeps up to 100, `show --json` all it keeps


def readback_line(result: RunResult, good: StyleType = "green", bad: StyleType = "bold red") -> Text | None:
    """The answer, styled by whether every block came back (None: the run verified nothing)."""
    answer = readback_answer(result)
    if answer is None:
        return None
    failed = any(s.verify is not None and s.verify.failed for s in result.steps)
    return Text(answer, style=bad if failed else good)


def readback_renderable(result: RunResult, good: StyleType = "green", bad: StyleType = "bold red") -> Group | None:
    """The answer, then per verified step its check and the blocks that did not read back."""
    line = readback_line(result, good, bad)
    if line is None:
        return None
    parts: list[RenderableType] = [line]
    for s in result.steps:
        parts += step_blocks(s, result.id)
    return Group(*parts)


def step_blocks(step: StepResult, result_id: str) -> list[RenderableType]:
    """A verified step's check in one line, then the blocks that did not read back (none: not verified)."""
    v = step.verify
    if v is None:
        return []
    parts: list[RenderableType] = [Text(f"{step.name}: {v.summary()}", style="dim" if not v.failed else "")]
    if not v.mismatches:
        return parts
    table = Table(box=None, pad_edge=False, show_edge=False)
    for name in ("offset", "what", "expected", "found", "bytes from there (expected / found)"):
        table.add_column(name, overflow="fold")
    for m in v.mismatches[:SHOWN]:
        at = f"+{m.differ_at}: " if m.differ_at is not None else ""
        what = m.detail if m.detail.startswith(f"{m.kind}:") else f"{m.kind}: {m.detail}"  # "torn: torn: only..."
        table.add_row(str(m.offset), what, m.expected, m.found,
                      f"{at}{m.expected_bytes} / {m.found_bytes}" if m.expected_bytes else "")
    parts.append(table)
    more = len(v.mismatches) - SHOWN + (v.mismatched - len(v.mismatches))
    if more > 0:
        parts.append(Text(f"… and {more} more (labtui show {result_id} --json keeps the first {len(v.mismatches)})",
                          style="dim"))
    return parts
