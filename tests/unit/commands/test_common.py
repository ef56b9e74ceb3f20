"""What the sub-commands share (labtui/commands/common.py): the consoles they print on."""

import re

import pytest

from labtui.cli import main
from labtui.results.store import Store
from synthetic import READ, run_result


def _baseline_of_one_run(labtui_home, capsys, monkeypatch, columns):
    """`labtui baseline ID` of a one-run result, its stdout into a pipe (capsys), at COLUMNS or with none."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(columns))
    rid = Store(labtui_home).save_result(run_result("20261101-120000-aaaa", {READ: [50_000]}))[0].id
    assert main(["baseline", rid]) == 0
    return capsys.readouterr().out.splitlines()


def test_into_a_pipe_a_paragraph_is_one_line_never_broken_mid_sentence(labtui_home, capsys, monkeypatch):
    # Into a pipe stdout was 240 columns wide: `labtui baseline ID | cat` broke the advice after "or mark a",
    # and the terminal showing the pipe broke each half mid-word; stderr already wrote a paragraph a line.
    lines = _baseline_of_one_run(labtui_home, capsys, monkeypatch, None)
    advice = [line for line in lines if line.startswith("With 1 run per step")]
    assert len(advice) == 1 and len(advice[0]) > 240, lines
    assert advice[0].endswith("(or mark a `labtui run --repeat 3` result).")
    assert lines[0].startswith("20261101-120000-aaaa is now the baseline")  # the answer first


@pytest.mark.parametrize("columns", [60, 80])
def test_at_columns_a_paragraph_wraps_between_words(labtui_home, capsys, monkeypatch, columns):
    lines = _baseline_of_one_run(labtui_home, capsys, monkeypatch, columns)
    start = next(i for i, line in enumerate(lines) if line.startswith("With 1 run per step"))
    advice = lines[start:]
    assert len(advice) > 2 and all(len(line) <= columns for line in advice), advice
    # Joined at the breaks with a space, the lines are the paragraph: no word was cut in two.
    whole = " ".join(line.rstrip() for line in advice)
    assert re.fullmatch(r"With 1 run per step a check cannot tell how much this disk varies on its own, so it can only "
                        r"see large regressions\. `labtui baseline 20261101-120000-aaaa --more 2` runs each step 2 more "
                        r"times now \(one result\) and adds the runs \(or mark a `labtui run --repeat 3` result\)\.",
                        whole), advice
