"""Print a shell completion script for bash, zsh or fish (and answer the shell when it asks).

The script comes from argcomplete: on Tab the shell runs `labtui` again with the line so far in
its environment, and `complete(parser)` answers from the parser itself, with what the store holds
for the values a parser cannot know: result ids (and so their prefixes: `labtui show 2026<Tab>`),
profile names, tags, engines, hosts files and the profile's parameters. It reads, never writes
(beyond the summary index a listing keeps), and an unreadable store completes nothing rather than
saying so in the middle of a command line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

HELP = "print a shell completion script: bash, zsh or fish (the manual, docs/cli.md, says how to install it)"
SHELLS = ("bash", "zsh", "fish")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def run(args: argparse.Namespace) -> int:
    import argcomplete

    print(argcomplete.shellcode(["labtui"], shell=args.shell), end="")
    return 0


# ------------------------------------------------------------------ answering the shell

Completer = Callable[..., Iterable[str]]


def _store() -> Any:
    from labtui.results.store import Store

    return Store()


def result_ids(**_kwargs: Any) -> list[str]:
    """Every readable result's id, newest first (the shell keeps those that start with what was typed)."""
    rows, _broken = _store().summaries()
    return [row.id for row in sorted(rows, key=lambda r: r.started, reverse=True)]


def profile_names(prefix: str = "", **_kwargs: Any) -> list[str]:
    """The built-in profiles' names, the user's (their files' names), and .toml files where a path is typed."""
    from labtui.results.store import builtin_profiles

    names = [p.name for p in builtin_profiles()]
    names += [path.stem for path in _store().user_profile_files() if path.stem not in names]
    if "/" in prefix or prefix.startswith("."):
        from argcomplete.completers import FilesCompleter

        names += list(FilesCompleter(["toml"])(prefix))
    return names


def tags(**_kwargs: Any) -> list[str]:
    """The tags the saved results carry."""
    rows, _broken = _store().summaries()
    return sorted({tag for row in rows for tag in row.tags})


def engines(**_kwargs: Any) -> list[str]:
    from labtui.engine.registry import engine_names

    return engine_names()


def fail_on_metrics(**_kwargs: Any) -> list[str]:
    from labtui.analysis.checks import FAIL_ON

    return list(FAIL_ON)


def params(parsed_args: argparse.Namespace | None = None, **_kwargs: Any) -> list[str]:
    """`NAME=` for each parameter of the profile named earlier on the line (-p)."""
    name = getattr(parsed_args, "profile", None)
    if not name:
        return []
    return [f"{param.name}=" for param in _store().profile(name).params]


def _completers() -> dict[str, Completer]:
    """What completes each argument, by the name its value is kept under (argparse's dest)."""
    from argcomplete.completers import DirectoriesCompleter, FilesCompleter

    toml_files = FilesCompleter(["toml"])
    return {
        "id": result_ids, "ids": result_ids, "baseline": result_ids,
        "profile": profile_names, "name": profile_names,
        "tag": tags,
        "engine": engines,
        "fail_on": fail_on_metrics,
        "param": params,
        "target": DirectoriesCompleter(),
        "hosts": toml_files, "tui_hosts": toml_files,
        "files": FilesCompleter(), "out": FilesCompleter(["zpaq"]), "svg": FilesCompleter(["svg"]),
    }


def _quiet(completer: Completer) -> Completer:
    """The completer, with a store or a file it cannot read completing nothing (no traceback at a prompt)."""

    def answer(**kwargs: Any) -> Iterable[str]:
        try:
            return list(completer(**kwargs))
        except Exception:  # noqa: BLE001 - whatever the store holds, Tab must not break the command line
            return []

    return answer


def attach(parser: argparse.ArgumentParser) -> None:
    """Give every argument of `parser` and its sub-commands' parsers its completer."""
    completers = _completers()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                attach(sub)
        elif action.dest in completers and not action.choices:
            action.completer = _quiet(completers[action.dest])  # type: ignore[attr-defined]


def complete(parser: argparse.ArgumentParser, **options: Any) -> None:
    """Answer the shell's Tab (it set _ARGCOMPLETE) and exit; return at once otherwise. `options` go to
    argcomplete.autocomplete (a test's output stream and exit)."""
    import argcomplete

    attach(parser)
    argcomplete.autocomplete(parser, **options)
