"""A tripwire on every markup parser labtui's screens and prints reach, for the hostile corpus.

A context manager, not a conftest.py fixture: tests/conftest.py is imported as `conftest` (the
tests import its helpers), and a second conftest.py here would take that name.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def markup_tripwire() -> Iterator[list[str]]:
    """Every time Rich or Textual parses markup out of corpus text ("evil" marks it), and where from.

    A screen may show "[red]" right and still have parsed it (a toast whose markup happened to be
    balanced): the parse itself is the bug, so a test fails on it, naming the caller.
    """
    import rich.console
    import rich.markup
    import textual.markup

    parsed: list[str] = []

    def watch(parse):
        def parse_and_note(markup, *args, **kwargs):
            if isinstance(markup, str) and "evil" in markup:
                parsed.append(f"{markup[:80]!r} parsed as markup at\n{''.join(traceback.format_stack(limit=6)[:-1])}")
            return parse(markup, *args, **kwargs)

        return parse_and_note

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rich.markup, "render", watch(rich.markup.render))
        patch.setattr(rich.console, "render_markup", watch(rich.console.render_markup))
        patch.setattr(textual.markup, "to_content", watch(textual.markup.to_content))
        yield parsed
