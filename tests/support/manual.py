"""The manual's pages (docs/*.md) as the tests read them: a page, a section of it, every page."""

from __future__ import annotations

import re
import shlex

from conftest import REPO
from labtui.analysis.checks import parse_fail_on
from labtui.cli import build_parser
from labtui.engine.registry import ENGINES
from labtui.results.store import builtin_profiles
from labtui.units import parse_duration, parse_size

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


# Where the shell takes over from labtui's arguments: a redirection, a pipe, a background "&".
_SHELL_CUT = re.compile(r"\s(?:\d?>|&|\|(?=\s))")


def shown_command_lines(text: str) -> list[str]:
    """Every line of a ```sh or ```text block that starts with `labtui` (after a `$ ` prompt or `nohup`)."""
    lines = []
    for block in re.findall(r"```(?:sh|text)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"^\s*(?:\$\s+)?(?:nohup\s+)?", "", line)
            if line.startswith("labtui ") or line == "labtui":
                lines.append(line)
    return lines


def invocations(line: str) -> list[list[str]]:
    """The argument lists a reader could mean by `line`: comment and redirections cut, every `a|b` tried."""
    line = re.split(r"\s#", line, maxsplit=1)[0]
    line = _SHELL_CUT.split(line, maxsplit=1)[0]
    line = re.sub(r"\s*\[[^\]]*\]", "", line)  # optional parts: "ID [ID...]", "[C ...]"
    words = shlex.split(line)[1:]
    variants: list[list[str]] = [[]]
    for word in words:
        choices = word.split("|") if "|" in word else [word]
        variants = [v + [c] for v in variants for c in choices]
    return variants


def known_values(args: list[str]) -> None:
    """The values the line names are ones labtui accepts (argparse checks only the option names)."""
    parsed = build_parser().parse_args(args)
    names = {p.name for p in builtin_profiles()}
    profile = getattr(parsed, "profile", None)
    if profile is not None and not profile.endswith(".toml") and profile.upper() != profile:
        assert profile in names, f"{profile!r} is not a built-in profile ({', '.join(sorted(names))})"
    engine = getattr(parsed, "engine", None)
    if engine is not None:
        assert engine in ENGINES
    for option in ("duration", "interval"):
        if getattr(parsed, option, None):
            parse_duration(getattr(parsed, option))
    for option in ("file_size", "size"):
        if getattr(parsed, option, None):
            parse_size(getattr(parsed, option))
    parse_fail_on(getattr(parsed, "fail_on", None) or [])
