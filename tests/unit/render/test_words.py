"""Words: table cells that wrap between words and after commas, cutting only a token longer than the column."""

import re
from dataclasses import replace

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from factories import make_result
from labtui.render.result_tables import result_steps_table
from labtui.render.words import Words, break_offsets, fold


def lines(renderable, width):
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_a_list_breaks_after_its_commas_and_between_words():
    text = "tags: slot-2,after-card-swap, firmware 2.1.0 upgraded"
    assert lines(Words(text), 16) == ["tags: slot-2,", "after-card-swap,", "firmware 2.1.0", "upgraded"]


@pytest.mark.parametrize("width", range(4, 40))
def test_only_a_token_longer_than_the_line_is_cut_and_then_after_a_hyphen_where_one_fits(width):
    text = "adapter-startech-pcie-gen3x4, slot-2 firmware 2.1.0"
    out = lines(Words(text), width)
    assert all(len(line) <= width for line in out), out
    assert "".join(out).replace(" ", "") == text.replace(" ", "")  # nothing lost, nothing added
    for token in re.findall(r"[^\s,]+,?", text):  # a comma goes with the word before it
        if len(token) <= width:
            assert any(token in line for line in out), (token, out)  # whole on one line
    if width >= 12:
        assert all(line.endswith(("-", ",")) or line.split()[-1] in text.split() for line in out[:-1]), out


def test_a_token_without_a_hyphen_is_cut_at_the_edge():
    assert break_offsets("abcdefghij", 4) == [4, 8]
    assert break_offsets("", 4) == [] and break_offsets("ab cd", 40) == []


def test_lines_and_styles_are_kept():
    text = Text.assemble("quick-sanity", "\n", ("native\ntags: a, b", "dim"))
    console = Console(width=8, record=True, color_system="standard", force_terminal=True)
    console.print(Words(text))
    assert console.export_text(clear=False).splitlines() == ["quick-", "sanity", "native", "tags: a,", "b"]
    assert "\x1b[2m" in console.export_text(styles=True)


def test_in_a_table_a_word_never_breaks_while_the_column_is_as_wide_as_it():
    table = Table()
    table.add_column("tags")
    table.add_column("disk", no_wrap=True)
    table.add_row(Words("startech-adapter, slot-2,after-card-swap"), "Samsung SSD 980 PRO 1TB")
    out = "\n".join(lines(table, 50))
    for word in ("startech-adapter,", "slot-2,", "after-card-swap"):
        assert word in out, out


def test_the_steps_table_of_show_wraps_a_long_step_name_after_its_hyphens():
    result = make_result()
    name = "Read-64K-random-after-card-swap-in-slot-2"
    first = result.steps[0]
    result = replace(result, steps=(replace(first, step=replace(first.step, name=name)), *result.steps[1:]))
    out = "\n".join(lines(result_steps_table(result), 60))  # the figures leave the name 13 columns
    for piece in re.findall(r"[^-]+-?", name):
        assert re.search(rf"(^|[\s-]){re.escape(piece)}", out, re.M), (piece, out)


def test_fold_breaks_between_words_and_a_path_after_its_hyphens_and_slashes():
    assert fold("Samsung SSD 990 PRO 2TB", 12) == ["Samsung SSD", "990 PRO 2TB"]
    assert fold("low space, slow link", 12) == ["low space,", "slow link"]
    assert fold("/mnt/lab-nvme-adapter-b/data", 16) == ["/mnt/lab-nvme-", "adapter-b/data"]
    assert fold("/", 5) == ["/"] and fold("", 5) == [""]
