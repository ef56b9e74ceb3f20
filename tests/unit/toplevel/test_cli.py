"""labtui.cli: the `labtui` command's edge, where every error becomes one line.

(Its other tests are in tests/unit/commands/test_cli_*.py until issue 40 moves them here.)
"""

from __future__ import annotations

import pytest

from labtui import cli
from labtui.commands import history

HOSTILE = "evil \x1b[2J\x1b[H\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x9b2J\u202eevil\nsecond line"


def test_an_unexpected_error_is_one_line_with_its_controls_shown(monkeypatch, capsys, labtui_home):
    """What an exception says may quote what it was reading (a key of a file, a host's word): the edge printed
    it raw, escape codes and newlines and all, where every other error is made printable."""

    def broken(args):
        raise RuntimeError(HOSTILE)

    monkeypatch.setattr(history, "run", broken)
    assert cli.main(["history"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("labtui: internal error: RuntimeError: ") and err.count("\n") == 1, err
    assert not any(c in err[:-1] for c in "\x1b\x9b\u202e\n"), err
    assert "\\x1b[2J" in err and "\\x0asecond line" in err


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.delenv("LABTUI_DEBUG", raising=False)
