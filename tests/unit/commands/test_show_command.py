"""`labtui show` (labtui/commands/show.py): one result's answer, table and method; ids refused in one line."""

from __future__ import annotations

from cli_calls import one_line_error, run
from tui_support import save_history


def test_show_with_an_id_no_file_can_have_is_a_clear_error(labtui_home):
    save_history(labtui_home, broken=False)
    message = one_line_error(run("show", "a" * 5000))
    assert "no result with id 'aaaaaaaaaaaaaaaaaaaaaaaa'… (5000 characters; an id is at most 250" in message
    assert len(message) < 200
