"""The headless commands print text from outside labtui as it is: never as markup, never raw.

`labtui run -t '/mnt/a/[/]'` on a terminal said "internal error: MarkupError" before its prompt;
`labtui show` read a result's warning as markup. Both consoles read no markup now
(commands/common.py): these feed them the corpus on a real terminal (a pty), where Rich styles.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace

from conftest import labtui_cmd
from corpus import ALL_MARKUP, HOSTILE, assert_not_raw, shown
from factories import make_result
from labtui.errors import ExitCode
from labtui.results.store import Store
from terminal import on_terminal


def _plain(output: str) -> str:
    return " ".join(re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", output).split())


def test_a_target_directory_named_like_markup_gets_its_prompt_on_a_terminal(tmp_path, labtui_home):
    target = tmp_path / "[red]" / "[link=https://evil.example]x" / "[" / "]"  # ends in "/[/]"
    target.mkdir(parents=True)
    code, output, _ = on_terminal(labtui_cmd("run", "-t", str(target), "-p", "quick-sanity"), columns=400, answer="n")
    plain = _plain(output)
    assert "MarkupError" not in plain and "internal error" not in plain, plain
    assert f"test file in {target} (" in plain and "Not started: nothing was written." in plain, plain
    assert code == ExitCode.DECLINED and list(target.iterdir()) == []


def test_show_prints_a_result_s_warnings_names_and_command_lines_as_they_are(labtui_home):
    result = make_result()
    step = replace(result.steps[0], step=replace(result.steps[0].step, name=f"step {ALL_MARKUP}"),
                   command_line=f"fio {HOSTILE}")
    store = Store(labtui_home)
    store.save_result(replace(result, steps=(step, *result.steps[1:]), warnings=(f"warned {HOSTILE}",),
                              tags=(f"tag {ALL_MARKUP}",)))
    code, output, _ = on_terminal(labtui_cmd("show", result.id), columns=2000)
    assert code == 0, output
    assert_not_raw(output, terminal=True)
    plain = _plain(output)
    assert f"warning: warned {' '.join(shown(HOSTILE).split())}" in plain
    assert f"step {ALL_MARKUP}: fio {' '.join(shown(HOSTILE).split())}" in plain
    # Into a pipe too, and `history` (its table) the same.
    for args in (("show", result.id), ("history",)):
        piped = subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=60)
        assert piped.returncode == 0 and "\x1b" not in piped.stdout + piped.stderr, piped.stderr
        assert f"tag {ALL_MARKUP}"[:12] in piped.stdout
