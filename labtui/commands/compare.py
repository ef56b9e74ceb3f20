"""Compare results step by step: differences, verdicts and what decided them, and what differs in the context."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from labtui.commands.common import decimal_number

if TYPE_CHECKING:
    from pathlib import Path

HELP = "compare two or more results (the first is the reference)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID", help="result ids (or unique prefixes); the first is the reference")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the comparison as JSON on stdout")
    form.add_argument("--markdown", action="store_true", help="print a Markdown table for a post or a ticket")
    parser.add_argument("--tolerance", type=decimal_number, default=None, metavar="PCT",
                        help="smallest difference in percent called better or worse (default 5)")
    parser.add_argument("--explain", action="store_true",
                        help="after the table, how the verdicts were reached: the tests, the pooled noise, and "
                             "what decided each line")
    parser.add_argument("--svg", metavar="FILE.svg", default=None,
                        help="also write the comparison as a picture: a bar chart per step with each result's "
                             "figure and spread, and what differs (replaces FILE.svg)")


def svg_path(text: str) -> Path:
    """Where --svg writes: a .svg file in a directory that exists (ValidationError otherwise)."""
    import os
    from pathlib import Path

    from labtui.errors import ValidationError
    from labtui.machine.paths import exists

    path = Path(os.path.expanduser(text))
    if path.suffix.lower() != ".svg":
        raise ValidationError(f"{text} does not end in .svg: name the picture FILE.svg", "--svg")
    if exists(path) and path.is_dir():  # LabtuiError for a name too long or a directory not to be looked into
        raise ValidationError(f"{path} is a directory", "--svg")
    parent = path.parent
    if not parent.is_dir():
        raise ValidationError(f"{parent} is not a directory", "--svg")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValidationError(f"permission denied: cannot write in {parent}", "--svg")
    return path


def tolerance(given: float | None, default: float) -> float:
    """The --tolerance percentage given (`default` where it was not), checked (LabtuiError for a negative
    or non-finite one, and for 100 or more: IOPS or MiB/s 100 % lower are none at all, so no step could
    ever be called worse or fail; 150 was taken without a word, most likely a 15 or a 1.5 mistyped)."""
    import math

    from labtui.errors import ValidationError

    value = default if given is None else given
    if not (math.isfinite(value) and value >= 0):
        raise ValidationError(f"must be a percentage of 0 or more, got {value:g}", "--tolerance")
    if value >= 100:
        raise ValidationError(f"must be below 100 (a drop of 100 % is no I/O at all: nothing could be called "
                              f"worse), got {value:g}", "--tolerance")
    return value


def run(args: argparse.Namespace) -> int:
    from labtui.analysis.answer import comparison_answers
    from labtui.analysis.comparison import DEFAULT_TOLERANCE_PCT, compare
    from labtui.analysis.known_noise import hint_from_store
    from labtui.commands.common import open_store, print_json, stderr, stdout
    from labtui.errors import LabtuiError
    from labtui.machine.paths import path_text
    from labtui.render.comparison import comparison_markdown, comparison_renderable

    if len(args.ids) < 2:
        raise LabtuiError("compare needs at least two result ids (the first is the reference)")
    picture = svg_path(args.svg) if args.svg is not None else None
    pct = tolerance(args.tolerance, DEFAULT_TOLERANCE_PCT)  # refused before any result is looked for
    store = open_store()
    results = [store.find_result(key) for key in args.ids]
    given: dict[str, str] = {}
    for key, result in zip(args.ids, results, strict=True):
        if result.id in given:  # against itself a result shows "no difference", as if that had been measured
            raise LabtuiError(f"{result.id} is given twice ({given[result.id]!r} and {key!r}): "
                              "compare needs different results")
        given[result.id] = key
    comparison = compare(results, pct, hint=hint_from_store(store, results))
    if picture is not None:
        from labtui.render.comparison_svg import comparison_svg
        from labtui.results.files import atomic_write

        try:
            atomic_write(picture, comparison_svg(comparison))
        except OSError as exc:
            raise LabtuiError(f"--svg: cannot write {picture}: {exc.strerror or exc}") from exc
        stderr().print(f"wrote the comparison picture to {path_text(picture)}", highlight=False, soft_wrap=True,
                       markup=False)
    if args.json:
        print_json(comparison.to_json() | {"answers": [a.to_json() for a in comparison_answers(comparison)]})
    elif args.markdown:
        import sys

        sys.stdout.write(comparison_markdown(comparison))
    else:
        stdout().print(comparison_renderable(comparison, explain=args.explain))
    return 0
