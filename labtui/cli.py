"""The `labtui` entry point: no argument opens the TUI; a sub-command runs headless.

Exit codes are a contract for scripts: 0 ok, 1 a check or run failed, 2 bad input (with a
one-line reason on stderr), 3 `check` could not tell (too noisy to see a regression), 4 not
started because the person answered no at a prompt (EXIT_CODES, shown by --help).
Sub-commands live in `labtui.commands`, one module each, and import what they need only when
they run, so `labtui --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import io
import keyword
import os
import re
import sys
from typing import Any, NoReturn

from labtui import __version__
from labtui.errors import ExitCode

# Module names under labtui.commands, in the order `labtui --help` lists them.
COMMANDS = ("run", "import", "disks", "profiles", "history", "show", "compare", "check", "baseline", "export",
            "make-archive", "completion", "agent")

# What each --help ends with: one command line to start from, and the manual's page for the rest
# (tests/unit/toplevel/test_cli.py runs each example through the parser and finds each page and anchor).
EXAMPLES: dict[str | None, tuple[str, str]] = {
    None: ("labtui run -p quick-sanity -t /mnt/nvme/labtui", "docs/index.md"),
    "run": ("labtui run -p quick-sanity -t /mnt/nvme/labtui --tag before-swap", "docs/cli.md#run"),
    "import": ("labtui import results/*.xml fio-*.json --tag old-lab", "docs/importing.md"),
    "disks": ("labtui disks --json", "docs/cli.md#disks"),
    "profiles": ("labtui profiles cdm-nvme", "docs/profiles.md"),
    "history": ("labtui history --tag before-swap --limit 20", "docs/cli.md#history"),
    "show": ("labtui show 20261130-14", "docs/cli.md#show"),
    "compare": ("labtui compare 20261130-14 20261201-10 --svg swap.svg", "docs/comparing.md"),
    "check": ("labtui check -t /mnt/nvme/labtui", "docs/comparing.md#check"),
    "baseline": ("labtui baseline 20261130-14 --more 2", "docs/comparing.md#check"),
    "export": ("labtui export --format csv > results.csv", "docs/cli.md#export"),
    "make-archive": ("labtui make-archive --size 200G /data/test.zpaq", "docs/command-steps.md"),
    "completion": ("eval \"$(labtui completion bash)\"   # in ~/.bashrc", "docs/cli.md#shell-completion"),
    "agent": ("labtui run -p quick-sanity --hosts lab.toml", "docs/many-hosts.md#what-happens"),
}


# Said by --help where a command can end for each reason: labtui's own, and the commands that ask first.
EXIT_CODES = ("exit codes: 0 ok; 1 a run or check failed; 2 bad input (one line says why); 3 check cannot tell "
              "(too noisy); 4 not started: you answered no at a prompt")
ASKS_FIRST = (None, "run", "check", "baseline")


def _epilog(command: str | None) -> str:
    example, page = EXAMPLES[command]
    codes = f"{EXIT_CODES}\n" if command in ASKS_FIRST else ""
    return f"{codes}example: {example}\nmanual:  {page}"


class _Formatter(argparse.HelpFormatter):
    """argparse's, with each line of a text filled on its own: the epilog's example stays a line of its own."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(super(_Formatter, self)._fill_text(line, width, indent) for line in text.splitlines())


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
        epilog=_epilog(None), formatter_class=_Formatter,
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
        command = sub.add_parser(name, help=module.HELP, description=(module.__doc__ or module.HELP).splitlines()[0],
                                 epilog=_epilog(name), formatter_class=_Formatter)
        module.add_arguments(command)
        command.set_defaults(handler=module, command_parser=command)
    return parser


def whole_stdout() -> None:
    """Put a buffered writer under stdout where Python was started unbuffered (PYTHONUNBUFFERED, -u).

    Unbuffered, stdout's text layer writes straight to the file descriptor and drops what a short
    write leaves: a signal with a handler, arriving while a large write waits on a full pipe, cut
    `--json` output at 64 KiB, silently. A BufferedWriter writes again until every byte is out;
    line buffering keeps progress lines as prompt as they were. Only the process's own stdout, and
    over the same descriptor without owning it (closefd=False): whoever else holds it (sys.__stdout__,
    a test's capture) keeps a working file when this wrapper goes.
    """
    out = sys.stdout
    if out is not sys.__stdout__ or not isinstance(out, io.TextIOWrapper) or not isinstance(out.buffer, io.FileIO):
        return  # buffered already, or not the process's own stdout
    out.flush()
    sys.stdout = io.TextIOWrapper(open(out.fileno(), "wb", closefd=False), encoding=out.encoding,
                                  errors=out.errors, line_buffering=True)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions of a line (labtui completion bash)
        from labtui.commands.completion import complete

        complete(parser)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse reports a sub-command's unknown words from the top-level parser, whose --help
        # does not list that command's options: point at the command's own.
        (getattr(args, "command_parser", None) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    from labtui.errors import LabtuiError
    from labtui.printable import printable

    if args.command is not None and args.tui_hosts is not None:
        parser.error(f"--hosts before the command opens the TUI; give it after: labtui {args.command} --hosts FILE")

    if args.command is None:
        if args.tui_hosts is not None and not args.tui_hosts.strip():  # "" opened the TUI as if it were left out
            print("labtui: error: --hosts: is empty: give a hosts file or leave the option out", file=sys.stderr)
            return ExitCode.BAD_INPUT
        # Imported here: Textual takes a while to load, and `labtui --help` must stay fast.
        from labtui.app import run_app

        try:
            return run_app(hosts_file=args.tui_hosts)
        except LabtuiError as exc:
            print(f"labtui: error: {printable(str(exc), one_line=True)}", file=sys.stderr)
            return ExitCode.BAD_INPUT

    from labtui.errors import Declined

    whole_stdout()
    try:
        return int(args.handler.run(args) or 0)
    except Declined as exc:
        print(f"labtui: {printable(str(exc), one_line=True)}", file=sys.stderr)
        return ExitCode.DECLINED
    except LabtuiError as exc:
        # One line, whatever names it holds: a newline in a path must not start a line of its own.
        print(f"labtui: error: {printable(str(exc), one_line=True)}", file=sys.stderr)
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
        # An exception's words may quote what it was reading (a key of a file, a name): shown, never obeyed.
        print(f"labtui: internal error: {type(exc).__name__}: {printable(str(exc), one_line=True)} "
              "(LABTUI_DEBUG=1 shows the traceback)", file=sys.stderr)
        return ExitCode.FAILED


if __name__ == "__main__":
    sys.exit(main())
