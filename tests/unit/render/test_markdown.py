"""GitHub-flavoured Markdown tables (labtui.render.markdown): cells escaped and on one line, each row whole."""

from __future__ import annotations

import pytest

from labtui.render import markdown
from markdown_tables import tables


def test_markdown_cells_escape_pipes_and_newlines():
    text = markdown.table(["a|b", "c"], [["x|y", "two\nlines"]], [markdown.LEFT, markdown.RIGHT])
    [[row]] = tables("\n" + text)
    assert row == {"a|b": "x|y", "c": "two lines"}
    with pytest.raises(ValueError):
        markdown.table(["a"], [["1", "2"]])


def test_numbers_align_right_and_a_missing_value_is_an_empty_cell():
    text = markdown.table(["Step", "IOPS"], [["Read", 1200], ["Write", None]], [markdown.LEFT, markdown.RIGHT])
    assert text.splitlines()[1] == "|:---|---:|"
    assert text.splitlines()[3] == "| Write |  |" and text.endswith("|\n")
    assert markdown.cell("C:\\lab|x") == "C:\\\\lab\\|x"  # a backslash cannot escape the pipe after it
    with pytest.raises(ValueError, match="one alignment per column"):
        markdown.table(["a", "b"], [], [markdown.LEFT])
