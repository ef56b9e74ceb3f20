"""The README's Quick start is a contract: two commands, and CI runs the test one verbatim."""

import re

from conftest import REPO


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", quick_start, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_quick_start_has_two_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert "labtui" in commands[0] and "pytest" in commands[1]


def test_the_test_command_runs_in_parallel_with_what_the_test_extras_install():
    import tomllib

    command = _quick_start_commands()[1]
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert re.search(r"pytest -q -n \d+$", command) and any(e.startswith("pytest-xdist") for e in extras)


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert _quick_start_commands()[1] in ci
