"""The question before a write (labtui/commands/consent.py), asked one way on a terminal and off one."""

import io

import pytest

from labtui.commands.common import stderr
from labtui.commands.consent import answer, go_ahead


class Terminal(io.StringIO):
    """What a person types at a terminal (stdin that is a tty)."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("typed", "goes"), [
    ("y\n", True), ("yes\n", True), (" YES \n", True), ("n\n", False), ("\n", False), ("maybe\n", False),
    ("no\ny\n", False),  # one line answers: the next is not read
])
def test_off_a_terminal_the_answer_is_the_next_line_of_stdin(monkeypatch, capsys, typed, goes):
    # `echo n | labtui check` went ahead and wrote: with no terminal, it asked nothing and took yes.
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert go_ahead(stderr()) is goes
    out, err = capsys.readouterr()
    assert out == ""  # stdout may be the --json a script reads: the question is never there
    said = typed.splitlines()[0].strip()
    assert err.startswith(f"Go ahead? [y/N] {said} (read from stdin)\n"), err  # a log shows what was answered
    assert ("Not started: nothing was written." in err) is not goes


def test_off_a_terminal_with_nothing_to_read_the_command_goes_ahead_as_asked_and_says_so(monkeypatch, capsys):
    # A script or cron job with nothing on stdin (</dev/null) asked for the run on its command line; the
    # product owner's acceptance check runs `labtui check` so, without --yes, and wants it to pass.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert go_ahead(stderr()) is True
    assert capsys.readouterr().err == ("Go ahead? [y/N] no answer on stdin (end of input): going ahead as the command "
                                       "asked; --yes goes without asking\n")


@pytest.mark.parametrize(("typed", "goes"), [("y\n", True), ("n\n", False), ("", False)])
def test_on_a_terminal_only_yes_goes_and_ctrl_d_stops(monkeypatch, capsys, typed, goes):
    monkeypatch.setattr("sys.stdin", Terminal(typed))
    assert go_ahead(stderr()) is goes
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("Go ahead? [y/N] ") and "read from stdin" not in err  # the terminal echoes
    assert err.endswith("Not started: nothing was written.\n") is not goes


def test_an_answer_read_from_stdin_is_echoed_printable_and_short(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("\x1b]0;owned\x07" + "x" * 100 + "\n"))
    assert answer(stderr(), "Go ahead? [y/N] ") == "\x1b]0;owned\x07" + "x" * 100
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b]0;owned\\x07" in err and "x" * 40 not in err and "… (read from stdin)" in err


def test_a_stdin_that_cannot_be_read_is_no_answer(monkeypatch, capsys):
    class Closed(io.StringIO):
        def readline(self, *args):
            raise OSError("reading from stdin while output is captured")

    monkeypatch.setattr("sys.stdin", Closed())
    assert answer(stderr(), "Go ahead? [y/N] ") is None
