"""labtui.cli: the `labtui` command's edge, where every error becomes one line; its options before and after a
command, numbers in other scripts' digits, and every --help's example and manual page. (Each command's own
options and output: tests/unit/commands/test_<command>_command.py.)"""

from __future__ import annotations

import argparse
import re
import subprocess

import pytest
from markdown.extensions.toc import slugify

from cli_calls import run
from conftest import labtui_cmd
from labtui import cli
from labtui.cli import COMMANDS, EXAMPLES, build_parser
from labtui.commands import history
from manual import DOCS, headings, invocations, known_values, page, shown_command_lines

HOSTILE = "evil \x1b[2J\x1b[H\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x9b2J\u202eevil\nsecond line"


def test_an_unexpected_error_is_one_line_with_its_controls_shown(monkeypatch, capsys, labtui_home):
    """What an exception says may quote what it was reading (a key of a file, a host's word): the edge printed
    it raw, escape codes and newlines and all, where every other error is made printable."""

    def broken(args):
        raise RuntimeError(HOSTILE)

    monkeypatch.setattr(history, "run", broken)
    assert cli.main(["history"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("labtui: internal error: RuntimeError: ") and err.count("\n") == 1, err
    assert not any(c in err[:-1] for c in "\x1b\x9b\u202e\n"), err
    assert "\\x1b[2J" in err and "\\x0asecond line" in err


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.delenv("LABTUI_DEBUG", raising=False)


@pytest.mark.parametrize("args", [
    ("run", "--file-size", "１G"), ("run", "--duration", "３s"), ("run", "--interval", "１s"), ("run", "--repeat", "２"),
    ("history", "--limit", "２"), ("check", "--tolerance", "５"), ("compare", "a", "b", "--tolerance", "５"),
])
def test_numbers_in_digits_other_than_0_to_9_are_refused_in_one_line(labtui_home, tmp_path, args):
    # int() and float() read "２" as 2: such a number came from a paste, and no other place labtui reads takes it.
    target = tmp_path / "target"
    target.mkdir()
    out = run(*args, "-t", str(target), "--yes") if args[0] == "run" else run(*args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "0-9" in out.stderr and "Traceback" not in out.stderr
    assert not (labtui_home / "results").exists() and list(target.iterdir()) == []  # nothing run, nothing written


def test_bad_option_is_exit_2(labtui_home):
    out = run("history", "--limit", "x")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_an_unknown_option_points_at_the_help_of_the_command_it_was_given_to(labtui_home):
    # argparse reports a sub-command's unknown words from the top-level parser, whose --help
    # does not list that command's options.
    out = run("run", "-p", "quick-sanity", "--threads", "4")
    assert out.returncode == 2
    assert out.stderr == "labtui run: error: unrecognized arguments: --threads 4 (see labtui run --help)\n"
    top = run("--bogus")
    assert top.returncode == 2 and top.stderr == "labtui: error: unrecognized arguments: --bogus (see labtui --help)\n"


def _helps() -> dict[str | None, str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {None: parser.format_help()} | {name: sub.choices[name].format_help() for name in COMMANDS}


def _anchors(name: str) -> set[str]:
    text = page(name)
    explicit = set(re.findall(r"^#+ .*\{#([\w-]+)\}$", text, re.M))
    return explicit | {slugify(re.sub(r"[`*]", "", h), "-") for h in headings(text)}


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_ends_with_an_example_and_the_manuals_page(command, capsys):
    lines = _helps()[command].rstrip().splitlines()
    example, manual = EXAMPLES[command]
    assert lines[-2] == f"example: {' '.join(example.split())}" and lines[-1] == f"manual: {manual}", lines[-3:]
    where, _, anchor = manual.removeprefix("docs/").partition("#")
    assert (DOCS / where).is_file(), manual
    assert not anchor or anchor in _anchors(where), f"{manual}: docs/{where} has no heading with that anchor"
    for line in shown_command_lines(f"```sh\n{example}\n```"):  # `eval "$(...)"` is the shell's, not labtui's
        for args in invocations(line):
            known_values(args)


def test_every_command_has_an_example():
    assert set(EXAMPLES) == {None, *COMMANDS}


def test_hosts_before_a_command_is_refused_rather_than_quietly_running_here(tmp_path, labtui_home):
    done = subprocess.run(labtui_cmd("--hosts", str(tmp_path / "lab.toml"), "run"), capture_output=True, text=True)
    assert done.returncode == 2 and "give it after: labtui run --hosts FILE" in done.stderr


def test_an_empty_hosts_file_for_the_tui_is_refused_rather_than_opening_it_without(capsys, labtui_home):
    from labtui.cli import main

    assert main(["--hosts", " "]) == 2
    assert capsys.readouterr().err == "labtui: error: --hosts: is empty: give a hosts file or leave the option out\n"


def test_every_option_that_takes_a_value_shows_a_word_a_person_reads_in_help():
    # `run --help` showed --file-size FILE_SIZE and --repeat REPEAT beside --more N and --tolerance PCT.
    from labtui.commands.common import whole_number

    for name, sub in next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices.items():
        for action in sub._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            shown = action.metavar or action.dest.upper()
            assert "_" not in str(shown), (name, action.option_strings, shown)
            if action.type is whole_number:
                assert shown == "N", (name, action.option_strings, shown)
            if action.dest == "target":
                assert shown == "DIR", (name, action.option_strings, shown)
