"""The header bar at 80 columns: the target whole, on one line where a shorter title or "~" keeps it there."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content

from labtui.machine.target_choice import Target, home_form
from labtui.widgets.context_bar import header

PROFILE = [Content("profile quick-sanity")]


def plain(lines: list[Content]) -> list[str]:
    return [line.plain for line in lines]


def test_a_target_that_fits_beside_the_full_title_keeps_it():
    title, lines = header("Workload", PROFILE, ["/srv/b on /srv (ext4, vdb)", "/srv/b"], None, 80)
    assert title == "labtui · Workload"
    assert plain(lines) == ["profile quick-sanity · target /srv/b on /srv (ext4, vdb)"]
    # A briefer form beside the full title before the title is shortened.
    title, lines = header("Workload", PROFILE, ["/srv/bench on /srv (ext4, vdb)", "/srv/bench"], None, 80)
    assert (title, plain(lines)) == ("labtui · Workload", ["profile quick-sanity · target /srv/bench"])


def test_the_app_name_goes_before_the_target_takes_a_second_line():
    # 37 cells of directory: beside "labtui · Workload" it took a line of its own at 80 columns.
    directory = "/mnt/tuitext-lab-nvme-adapter-b/bench"
    title, lines = header("Workload", PROFILE, [f"{directory} (ext4, nvme1n1p1)", directory], None, 80)
    assert title == "Workload"
    assert plain(lines) == [f"profile quick-sanity · target {directory}"]
    assert len(title) + 4 + len(plain(lines)[0]) <= 80


def test_then_the_home_directory_is_said_as_a_tilde():
    directory = "/home/lab-admin/benchmarks/startech-slot-2"
    home = home_form(Path(directory), "/home/lab-admin", "/home/lab-admin")
    assert home == "~/benchmarks/startech-slot-2"
    title, lines = header("Workload", PROFILE, [directory], home, 80)
    assert (title, plain(lines)) == ("Workload", [f"profile quick-sanity · target {home}"])
    # Where the line holds the whole directory the tilde is not used.
    assert plain(header("Workload", PROFILE, [directory], home, 120)[1]) == [f"profile quick-sanity · target {directory}"]


def test_where_nothing_keeps_it_on_one_line_the_whole_directory_takes_lines_of_its_own():
    directory = "/home/lab-admin/benchmarks/startech-pcie-adapter-slot-2/after-the-firmware-upgrade"
    home = home_form(Path(directory), "/home/lab-admin", "/home/lab-admin")
    title, lines = header("Workload", PROFILE, [directory], home, 80)
    assert title == "labtui · Workload"
    assert plain(lines)[0] == "profile quick-sanity" and "~" not in "".join(plain(lines))
    assert "".join(plain(lines)[1:]).removeprefix("target ") == directory  # folded at its slashes, whole


def test_the_tilde_is_used_only_where_it_reads_one_way():
    at = Path("/home/lab/bench")
    assert home_form(at, "/home/lab", "/home/lab") == "~/bench"
    assert home_form(Path("/home/lab"), "/home/lab/", "/home/lab") == "~"
    assert home_form(at, "/home/lab", "/root") is None  # $HOME is not the account's: ~ and ~root differ
    assert home_form(at, None, "/home/lab") is None and home_form(at, "/home/lab", None) is None
    assert home_form(at, "/", "/") is None  # every path would start with "~"
    assert home_form(Path("/home/laboratory/x"), "/home/lab", "/home/lab") is None  # a prefix, not a parent
    assert home_form(Path("bench"), "/home/lab", "/home/lab") is None
    assert home_form(Path("/srv/bench"), "/home/lab", "/home/lab") is None
    assert Target(at).briefer() == ["/home/lab/bench"]  # the other forms never say "~"


async def test_on_screen_the_bar_drops_the_app_name_and_says_home_as_a_tilde(labtui_home, tmp_path, monkeypatch):
    from labtui.widgets import context_bar
    from tui_support import make_app, open_workload, widget_text

    monkeypatch.setattr(context_bar, "account_home", lambda: str(tmp_path))
    directory = tmp_path / ("adapter-slot-2-after-the-swap" + "x" * 2)  # 31 cells: "~/" and it fit 68, not 59
    directory.mkdir()
    app = make_app(labtui_home, fake_home=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        app.target = Target(directory)
        await pilot.pause()
        assert widget_text(app, "#context-title") == "Workload"
        assert widget_text(app, "#context-choice") == f"profile quick-sanity · target ~/{directory.name}"
        app.target = Target(Path("/srv/b"))
        await pilot.pause()
        assert widget_text(app, "#context-title") == "labtui · Workload"
        assert widget_text(app, "#context-choice") == "profile quick-sanity · target /srv/b"
