"""Hostile names and values against command steps: a target directory or a --param value holding
`$(...)`, backquotes, quotes or a newline never runs as a command, as root, through a real run.

Item 1 of issue 37: a placeholder inside a quoted word got shlex.quote's single quotes, which are
literal inside double quotes, and `ls -la "{target}/."` ran the `touch` in a directory's name.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import labtui_cmd

PROFILE = """
name = "{name}"
title = "hostile"
description = "command steps fed hostile names"
file_size = "1MiB"
free_space_margin = "0"
[params.msg]
default = "hi"
[[steps]]
name = "List"
kind = "command"
command = '''{command}'''
timeout = "20s"
sync = false
"""


def profile(tmp_path: Path, name: str, command: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(PROFILE.format(name=name, command=command))
    return path


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("run", *args, "--yes"), capture_output=True, text=True, timeout=60, cwd=cwd)


def ran(tmp_path: Path) -> list[Path]:
    """The files a command hidden in a name made (`touch RAN`, run in labtui's or the step's directory)."""
    return list(tmp_path.rglob("RAN"))


def test_a_placeholder_in_quotes_is_refused_before_anything_runs(labtui_home, tmp_path):
    target = tmp_path / "x$(touch RAN)"
    target.mkdir()
    quoted = profile(tmp_path, "quoted", 'ls -la "{target}/." {msg}')
    out = run(tmp_path, "-p", str(quoted), "-t", str(target))
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "steps[1].command: step 'List', line 1: {target} is inside double quotes" in out.stderr
    assert '"$LABTUI_PARAM_target"' in out.stderr
    assert ran(tmp_path) == [] and list(target.iterdir()) == []


def test_hostile_names_and_values_reach_the_commands_as_text(labtui_home, tmp_path):
    target = tmp_path / "x$(touch RAN)`touch RAN`'\"\n;touch RAN"
    target.mkdir()
    # A placeholder as a plain word, and the value from the environment inside quotes and a second shell.
    command = ("ls -la {target}/. >/dev/null && sh -c 'test -d \"$LABTUI_PARAM_target\"' && "
               "printf '%s' {msg} > {scratch}/m && test \"$(cat {scratch}/m)\" = \"$LABTUI_PARAM_msg\"")
    plain = profile(tmp_path, "plain", command)
    value = "$(touch RAN)`touch RAN`'\"\n[/]"
    out = run(tmp_path, "-p", str(plain), "-t", str(target), "--param", f"msg={value}", "--json")
    assert out.returncode == 0, out.stderr
    assert ran(tmp_path) == []
    assert list(target.iterdir()) == [], "the scratch directory is removed"
