"""`labtui --help` and every command's --help end with an example and the manual's page for it: the example is a
command labtui accepts, and the page and its anchor are in docs/."""

from __future__ import annotations

import argparse
import re

import pytest
from markdown.extensions.toc import slugify

from labtui.cli import COMMANDS, EXAMPLES, build_parser
from manual import DOCS, headings, invocations, known_values, page, shown_command_lines


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
