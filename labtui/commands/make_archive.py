"""Build a ZPAQ test archive of a chosen size from incompressible generated files (for zpaq-extract)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NoReturn

from labtui.commands.common import whole_number

if TYPE_CHECKING:
    from types import FrameType

HELP = "build a zpaq test archive of a chosen size (for the zpaq-extract profile)"
DEFAULT_FILES = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="OUT.zpaq", help="the archive to create (never overwritten)")
    parser.add_argument("--size", required=True, help="bytes of data in the archive, e.g. 10G (powers of 1024)")
    parser.add_argument("--files", type=whole_number, default=DEFAULT_FILES, metavar="N",
                        help=f"how many files share that size (default {DEFAULT_FILES})")
    parser.add_argument("--method", type=whole_number, default=1, metavar="N",
                        help="zpaq's -method, 0..5 (default 1, zpaq's own default)")


def run(args: argparse.Namespace) -> int:
    import signal
    import sys
    import time

    from labtui.engine.command.archive import make_archive, plan_archive
    from labtui.errors import LabtuiError
    from labtui.machine.paths import path_text
    from labtui.results.trust import root_write_refusal
    from labtui.units import human_duration, human_size, parse_size

    if not args.out.strip():  # "" was refused as "got 'tmp'", the current directory's name
        from labtui.errors import ValidationError

        raise ValidationError("is empty: give the archive to create, e.g. /data/test.zpaq", "OUT.zpaq")
    plan = plan_archive(args.out, parse_size(args.size, field="--size"), args.files, args.method)
    # As root, the archive and its work files go nowhere another user could send them (a link in place of a
    # directory on the way), nor is a file there removed when the making stops: results.files' rule.
    refusal = root_write_refusal(plan.out)
    if refusal is not None:
        raise LabtuiError(refusal)
    live = sys.stderr.isatty()
    every = 0.5 if live else 10.0  # seconds between updates of the same phase (a log file needs few)
    last: list = [0.0, ""]  # when and what was last shown

    def progress(what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if what == last[1] and now - last[0] < every:
            return
        last[0], last[1] = now, what
        line = f"{what}: {human_size(done)} of {human_size(total)} ({100 * done / total:.0f}%)"
        if live:
            sys.stderr.write("\r\x1b[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    # SIGTERM and SIGHUP stop it as Ctrl+C does, cleaning up on the way.
    def interrupt(signum: int, frame: FrameType | None) -> NoReturn:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        made = make_archive(plan, progress)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if live:
            sys.stderr.write("\r\x1b[K")
    print(f"{path_text(made.path)}: {made.files} file{'s' if made.files != 1 else ''}, {human_size(made.size)} of "
          f"incompressible data, archive {human_size(made.archive_bytes)} (zpaq -method {plan.method}), "
          f"made in {human_duration(made.seconds)}")
    return 0
