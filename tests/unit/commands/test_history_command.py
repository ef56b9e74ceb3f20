"""`labtui history` (labtui/commands/history.py): the list of saved results, on a terminal and as JSON."""

import pytest

from labtui.cli import main


@pytest.mark.parametrize("option", ["--profile", "--tag"])
def test_an_empty_filter_is_refused_not_taken_for_every_result(labtui_home, capsys, option):
    assert main(["history", option, " "]) == 2
    out, err = capsys.readouterr()
    wanted = "a tag" if option == "--tag" else "a profile's name"
    assert out == "" and err == f"labtui: error: {option}: is empty: give {wanted} or leave the option out\n"
