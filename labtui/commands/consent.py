"""Asking before labtui writes to a disk: one question, asked one way by every command that writes
(`run`, `check`, `baseline --more`, `run --all-volumes`), on a terminal and off one.

Off a terminal the answer is read from stdin as a terminal's would be: `echo n | labtui check` went
ahead and wrote, as if nobody had said no. Only where nothing answers at all (the end of input: a
script or cron job with nothing on stdin) does a command go ahead as it was asked to, and it says so;
`--yes` goes without asking. A raw device's data is never destroyed on that silence
(commands.progress.confirm refuses it before asking).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

GO_AHEAD = "Go ahead? [y/N] "
YES = ("y", "yes")
SHOWN_ANSWER = 40  # characters of an answer read from stdin echoed in the log (a pipe may send anything)


def answer(err: Console, question: str) -> str | None:
    """`question` on stderr, then the line that answers it: typed on a terminal, else the next line of
    stdin (echoed after the question, so a log shows what was answered); stripped; None at the end of
    input (Ctrl+D, an empty pipe, /dev/null) or where stdin cannot be read.

    On stderr, beside the plan it asks about: stdout may be the `--json` a script reads, and input()
    wrote its prompt there, into the file of `labtui run --json > r.json` and out of the person's sight.
    """
    from labtui.printable import printable

    terminal = sys.stdin is not None and sys.stdin.isatty()
    err.print(question, end="", markup=False, highlight=False)
    err.file.flush()
    try:
        line = sys.stdin.readline() if sys.stdin is not None else ""
    except (OSError, ValueError):  # closed, or no stdin to read at all: nobody answers
        line = ""
    said = line.strip() if line else None
    if not terminal and said is not None:
        shown = said if len(said) <= SHOWN_ANSWER else said[:SHOWN_ANSWER] + "…"
        err.print(f"{printable(shown, one_line=True)} (read from stdin)", markup=False, highlight=False, soft_wrap=True)
    elif said is None:
        err.print(end="\n" if terminal else "")  # the question's line ends where nothing was typed after it
    return said


def go_ahead(err: Console) -> bool:
    """"Go ahead? [y/N]", the question before anything is written: y or yes (any case) goes; anything
    else, typed or read from stdin, leaves everything unwritten (the caller exits ExitCode.DECLINED).
    At the end of input off a terminal, nobody is there to ask: the command goes ahead as asked, and
    says so on the question's line."""
    said = answer(err, GO_AHEAD)
    if said is None and not (sys.stdin is not None and sys.stdin.isatty()):
        err.print("no answer on stdin (end of input): going ahead as the command asked; --yes goes without asking",
                  markup=False, highlight=False, soft_wrap=True)
        return True
    if said is not None and said.lower() in YES:
        return True
    err.print("Not started: nothing was written.", markup=False, highlight=False, soft_wrap=True)
    return False
