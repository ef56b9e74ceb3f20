"""Compare results step by step: differences, verdicts and what decided them, and what differs in the context."""

from __future__ import annotations

HELP = "compare two or more results (the first is the reference)"


def add_arguments(parser) -> None:
    parser.add_argument("ids", nargs="+", metavar="ID", help="result ids (or unique prefixes); the first is the reference")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the comparison as JSON on stdout")
    form.add_argument("--markdown", action="store_true", help="print a Markdown table for a post or a ticket")
    parser.add_argument("--tolerance", type=float, default=None, metavar="PCT",
                        help="smallest difference in percent called better or worse (default 5)")


def tolerance(args, default: float) -> float:
    """The --tolerance percentage, checked (LabtuiError for a negative or non-finite one)."""
    import math

    from labtui.errors import ValidationError

    value = default if args.tolerance is None else args.tolerance
    if not (math.isfinite(value) and value >= 0):
        raise ValidationError(f"must be a percentage of 0 or more, got {value:g}", "--tolerance")
    return value


def run(args) -> int:
    from labtui.commands.common import open_store, print_json, stdout
    from labtui.analysis.comparison import DEFAULT_TOLERANCE_PCT, compare
    from labtui.render.comparison import comparison_markdown, comparison_renderable
    from labtui.errors import LabtuiError
    from labtui.analysis.known_noise import hint_from_store

    if len(args.ids) < 2:
        raise LabtuiError("compare needs at least two result ids (the first is the reference)")
    store = open_store()
    results = [store.find_result(key) for key in args.ids]
    comparison = compare(results, tolerance(args, DEFAULT_TOLERANCE_PCT), hint=hint_from_store(store, results))
    if args.json:
        print_json(comparison.to_json())
    elif args.markdown:
        import sys

        sys.stdout.write(comparison_markdown(comparison))
    else:
        stdout().print(comparison_renderable(comparison))
    return 0
