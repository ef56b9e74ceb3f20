"""What the sub-commands share (labtui/commands/common.py): the consoles they print on."""

import re

import pytest

from labtui.cli import main
from labtui.results.store import Store
from synthetic import READ, run_result


def _baseline_of_one_run(labtui_home, capsys, monkeypatch, columns):
    """`labtui baseline ID` of a one-run result, its stdout into a pipe (capsys), at COLUMNS or with none."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(columns))
    rid = Store(labtui_home).save_result(run_result("20261101-120000-aaaa", {READ: [50_000]}))[0].id
    assert main(["baseline", rid]) == 0
    return capsys.readouterr().out.splitlines()


def test_into_a_pipe_a_paragraph_is_one_line_never_broken_mid_sentence(labtui_home, capsys, monkeypatch):
    # Into a pipe stdout was 240 columns wide: `labtui baseline ID | cat` broke the advice after "or mark a",
    # and the terminal showing the pipe broke each half mid-word; stderr already wrote a paragraph a line.
    lines = _baseline_of_one_run(labtui_home, capsys, monkeypatch, None)
    advice = [line for line in lines if line.startswith("With 1 run per step")]
    assert len(advice) == 1 and len(advice[0]) > 240, lines
    assert advice[0].endswith("(or mark a `labtui run --repeat 3` result).")
    assert lines[0].startswith("20261101-120000-aaaa is now the baseline")  # the answer first


@pytest.mark.parametrize("columns", [60, 80])
def test_at_columns_a_paragraph_wraps_between_words(labtui_home, capsys, monkeypatch, columns):
    lines = _baseline_of_one_run(labtui_home, capsys, monkeypatch, columns)
    start = next(i for i, line in enumerate(lines) if line.startswith("With 1 run per step"))
    advice = lines[start:]
    assert len(advice) > 2 and all(len(line) <= columns for line in advice), advice
    # Joined at the breaks with a space, the lines are the paragraph: no word was cut in two.
    whole = " ".join(line.rstrip() for line in advice)
    assert re.fullmatch(r"With 1 run per step a check cannot tell how much this disk varies on its own, so it can only "
                        r"see large regressions\. `labtui baseline 20261101-120000-aaaa --more 2` runs each step 2 more "
                        r"times now \(one result\) and adds the runs \(or mark a `labtui run --repeat 3` result\)\.",
                        whole), advice


def test_piped_to_a_screen_a_paragraph_wraps_between_words_at_the_screens_width(labtui_home):
    # `labtui baseline ID | cat` in an 80-column terminal: stdout is a pipe, stderr the terminal the
    # report is read on. At 240 columns its lines broke mid-sentence, then the terminal broke them mid-word.
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    from conftest import labtui_cmd

    rid = Store(labtui_home).save_result(run_result("20261101-120000-aaaa", {READ: [50_000]}))[0].id
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        done = subprocess.run(labtui_cmd("baseline", rid), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=follower, text=True, env=env, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("With 1 run per step"))
    assert all(len(line) <= 80 for line in lines) and len(lines[start:]) > 2, lines
    assert " ".join(line.rstrip() for line in lines[start:]).startswith(
        "With 1 run per step a check cannot tell how much this disk varies on its own, so it can only see large "
        "regressions."), lines


def test_a_report_whose_reader_went_is_dropped_and_the_command_ends_with_its_own_status(monkeypatch):
    # `labtui check | head -3`, `labtui run --hosts H | head`: rich's answer to the closed pipe was SystemExit(1),
    # "a regression found" whatever the check found (and, inside a fleet's event handler, every host cut off).
    import io
    import os
    import sys

    from labtui.commands.common import print_json, stdout

    reader, writer = os.pipe()
    os.close(reader)  # the reader went
    out = io.TextIOWrapper(open(writer, "wb"), encoding="utf-8", line_buffering=True)
    monkeypatch.setattr(sys, "stdout", out)
    try:
        stdout().print("the report " * 2000)  # neither SystemExit nor BrokenPipeError
        assert os.readlink(f"/proc/self/fd/{writer}") == "/dev/null", "later writes, and the flush at exit, go nowhere"
        stdout().print("its last line")
        print_json({"figures": "x" * 100_000})
    finally:
        out.close()
    reader, writer = os.pipe()
    os.close(reader)
    out = io.TextIOWrapper(open(writer, "wb"), encoding="utf-8", line_buffering=True)
    monkeypatch.setattr(sys, "stdout", out)
    try:
        print_json({"figures": "x" * 100_000})  # `labtui check --json | head -c 1`
        assert os.readlink(f"/proc/self/fd/{writer}") == "/dev/null"
    finally:
        out.close()
