"""Every `labtui ...` line in the code blocks of the README and the manual (docs/) is a command labtui accepts,
as a reader would type it.

A line is taken as the page shows it: its comment and shell redirections cut, each alternative of
`a|b` tried, optional `[...]` parts left out. The parser must accept it, and the values it names must
be ones labtui knows: a built-in profile, an engine, a size, a duration, a --fail-on metric.
"""

from __future__ import annotations

import re
import shlex

import pytest

from labtui.analysis.checks import parse_fail_on
from labtui.cli import build_parser
from labtui.engine.registry import ENGINES
from labtui.results.store import builtin_profiles
from labtui.units import parse_duration, parse_size
from manual import pages

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


def _known_values(args: list[str]) -> None:
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


def _shown_lines() -> list[str]:
    return sorted({line for text in pages().values() for line in shown_command_lines(text)})


def test_the_manual_shows_commands():
    commands = {line.split()[1] for line in _shown_lines() if len(line.split()) > 1}
    # Every sub-command a person runs by hand appears in an example (the agent is started over ssh).
    assert {"run", "import", "disks", "profiles", "history", "show", "compare", "check", "baseline", "export",
            "make-archive"} <= commands


@pytest.mark.parametrize("line", _shown_lines())
def test_a_shown_command_is_accepted(line: str, capsys: pytest.CaptureFixture[str]):
    for args in invocations(line):
        try:
            _known_values(args)
        except SystemExit as exc:  # argparse refuses with exit 2 and its reason on stderr
            pytest.fail(f"labtui refuses the manual's {line!r} as {args}: {capsys.readouterr().err.strip()}"
                        f" (exit {exc.code})")


def test_invocations_read_a_line_as_a_person_would():
    assert invocations("labtui export --format markdown|json     #   all results") == [
        ["export", "--format", "markdown"], ["export", "--format", "json"]]
    assert invocations("labtui compare A B [C ...]   # a table") == [["compare", "A", "B"]]
    assert invocations("labtui run -p x -t DIR --yes --json > result.json 2> progress.log &") == [
        ["run", "-p", "x", "-t", "DIR", "--yes", "--json"]]
    assert shown_command_lines("```sh\nnohup labtui run -p q &\n$ labtui show x\nssh h labtui --version\n```") == [
        "labtui run -p q &", "labtui show x"]


def test_a_wrong_option_is_caught(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        _known_values(invocations("labtui run -p quick-sanity --durations 3s")[0])
    with pytest.raises(AssertionError):
        _known_values(invocations("labtui run -p quick-sanitty -t .")[0])

