"""A strict reader of GitHub-flavoured Markdown tables, to check what labtui writes parses back."""

from __future__ import annotations

import re

DELIMITER = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+$")


def split_row(line: str) -> list[str]:
    assert line.startswith("|") and line.endswith("|"), f"not a table row: {line!r}"
    cells, current, escaped = [], "", False
    for ch in line[1:-1]:
        if escaped:
            current += ch
            escaped = False
        elif ch == "\\":
            current += ch
            escaped = True
        elif ch == "|":
            cells.append(current)
            current = ""
        else:
            current += ch
    cells.append(current)
    return [c.strip().replace("\\|", "|").replace("\\\\", "\\") for c in cells]


def tables(text: str) -> list[list[dict[str, str]]]:
    """Every table in `text` as a list of rows keyed by header; AssertionError on a malformed one."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and DELIMITER.match(lines[i + 1]):
            assert i == 0 or not lines[i - 1].strip(), "a table must follow a blank line"
            headers = split_row(lines[i])
            assert len(split_row(lines[i + 1])) == len(headers), "delimiter row width differs from the header"
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = split_row(lines[i])
                assert len(cells) == len(headers), f"row has {len(cells)} cells, header {len(headers)}: {lines[i]!r}"
                rows.append(dict(zip(headers, cells)))
                i += 1
            found.append(rows)
        else:
            assert not lines[i].startswith("|"), f"a table row outside a table: {lines[i]!r}"
            i += 1
    return found
