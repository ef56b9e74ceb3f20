"""GitHub-flavoured Markdown tables: the form results take in blog posts, tickets and wikis."""

from __future__ import annotations

from collections.abc import Sequence

LEFT, RIGHT = "left", "right"


def cell(value: object) -> str:
    """One cell's text: pipes escaped, line breaks flattened (a cell is one line)."""
    text = "" if value is None else str(value)
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: Sequence[str] | None = None) -> str:
    """A Markdown table; `align` gives LEFT or RIGHT per column (numbers read best right-aligned)."""
    align = list(align or [LEFT] * len(headers))
    if len(align) != len(headers):
        raise ValueError("one alignment per column")
    lines = [
        "| " + " | ".join(cell(h) for h in headers) + " |",
        "|" + "|".join("---:" if a == RIGHT else ":---" for a in align) + "|",
    ]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"a row has {len(row)} cells for {len(headers)} columns")
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"
