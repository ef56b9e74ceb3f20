"""The manual's pages (docs/*.md) as the tests read them: a page, a section of it, every page."""

from __future__ import annotations

import re

from conftest import REPO

DOCS = REPO / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def section(name: str, title: str) -> str:
    """The text under the heading `title` (any level) of docs/`name`, up to the next heading of its level or above."""
    text = page(name)
    match = re.search(rf"^(#+) {re.escape(title)}(?: \{{#[\w-]+\}})?\n", text, re.M)
    assert match, f"docs/{name} has no heading {title!r}"
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", _blank_fences(rest), re.M)
    return rest[: end.start()] if end else rest


def pages() -> dict[str, str]:
    """Every page of the manual by its file name (the README too, as README.md)."""
    found = {p.relative_to(DOCS).as_posix(): p.read_text() for p in sorted(DOCS.rglob("*.md"))}
    return found | {"README.md": (REPO / "README.md").read_text()}


def headings(text: str) -> list[str]:
    """The Markdown headings of `text`, outside its code blocks."""
    # A heading's own anchor ("## Baselines ... {#check}", attr_list) is not part of its text.
    return [re.sub(r"\s*\{#[\w-]+\}$", "", m.group(2)) for m in re.finditer(r"^(#+) (.+)$", _blank_fences(text), re.M)]


def _blank_fences(text: str) -> str:
    """`text` with its fenced code blocks' lines blanked, same length (a `# comment` in a block is no heading)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            out.append(line)
        else:
            out.append(" " * len(line) if fenced else line)
    return "\n".join(out)
