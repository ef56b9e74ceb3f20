"""Every `labtui ...` line in the code blocks of the README and the manual (docs/) is a command labtui accepts,
as a reader would type it.

A line is taken as the page shows it: its comment and shell redirections cut, each alternative of
`a|b` tried, optional `[...]` parts left out. The parser must accept it, and the values it names must
be ones labtui knows: a built-in profile, an engine, a size, a duration, a --fail-on metric.
"""

from __future__ import annotations

import pytest

from manual import invocations, known_values, pages, shown_command_lines


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
            known_values(args)
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
        known_values(invocations("labtui run -p quick-sanity --durations 3s")[0])
    with pytest.raises(AssertionError):
        known_values(invocations("labtui run -p quick-sanitty -t .")[0])

