"""The `labtui` entry point: no argument opens the TUI; a sub-command runs headless.

Exit codes are a contract for scripts: 0 ok, 1 a check or run failed, 2 bad input (with a
one-line reason on stderr), 3 `check` could not tell (too noisy to see a regression).
Sub-commands live in `labtui.commands`, one module each, and import what they need only when
they run, so `labtui --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import keyword
import os
import re
import sys
from typing import Any, NoReturn

from labtui import __version__
from labtui.errors import ExitCode

# Module names under labtui.commands, in the order `labtui --help` lists them.
COMMANDS = ("run", "import", "disks", "profiles", "history", "show", "compare", "check", "baseline", "export",
            "make-archive", "agent")


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:  # argparse's, passed on as they came
        super().__init__(*args, **kwargs)
        # "--duration -1s" or "--file-size -5G": a value to refuse with its reason, not an unknown
        # option ("expected one argument"). argparse treats "-5" so, but not "-1s"; no option of
        # labtui's starts with "-" and a digit, so any such word is a value.
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> NoReturn:  # argparse's default is a usage dump; keep it to one line
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="labtui",
        description="Benchmark disks on lab machines. Without a command, opens the terminal UI.",
    )
    parser.add_argument("--version", action="version", version=f"labtui {__version__}")
    # Its own dest: a sub-command's --hosts default would overwrite it (`labtui --hosts F run` is refused below).
    parser.add_argument("--hosts", metavar="FILE", dest="tui_hosts",
                        help="open the TUI on its Fleet screen with this hosts file")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        # A command named like a Python keyword lives in a module with a trailing underscore; "-" is "_".
        stem = name.replace("-", "_")
        module = importlib.import_module(f"labtui.commands.{stem}{'_' if keyword.iskeyword(stem) else ''}")
        command = sub.add_parser(name, help=module.HELP, description=(module.__doc__ or module.HELP).splitlines()[0])
        module.add_arguments(command)
        command.set_defaults(handler=module, command_parser=command)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse reports a sub-command's unknown words from the top-level parser, whose --help
        # does not list that command's options: point at the command's own.
        (getattr(args, "command_parser", None) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    from labtui.errors import LabtuiError

    if args.command is not None and args.tui_hosts is not None:
        parser.error(f"--hosts before the command opens the TUI; give it after: labtui {args.command} --hosts FILE")

    if args.command is None:
        # Imported here: Textual takes a while to load, and `labtui --help` must stay fast.
        from labtui.app import run_app

        try:
            return run_app(hosts_file=args.tui_hosts)
        except LabtuiError as exc:
            print(f"labtui: error: {exc}", file=sys.stderr)
            return ExitCode.BAD_INPUT

    try:
        return int(args.handler.run(args) or 0)
    except LabtuiError as exc:
        print(f"labtui: error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("labtui: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # `labtui history | head`: the reader went away; not an error worth a message.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.OK
    except Exception as exc:  # the edge: one line, not a traceback
        if os.environ.get("LABTUI_DEBUG"):
            raise
        print(f"labtui: internal error: {type(exc).__name__}: {exc} (LABTUI_DEBUG=1 shows the traceback)", file=sys.stderr)
        return ExitCode.FAILED


if __name__ == "__main__":
    sys.exit(main())
