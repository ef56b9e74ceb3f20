"""The Fleet screen (screens/fleet.py): its layout at 80 and 120 columns, the hosts file field, its keys, the
question before a fleet run starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from labtui.fleet import requests
from labtui.fleet.session import Fleet
from labtui.results.profile_file import parse_profile_text
from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.fleet import FleetScreen
from labtui.screens.run import RunScreen
from labtui.settings import Settings
from tui_support import make_app, screen_text, set_text, wait_for, widget_text


@pytest.fixture
def hosts_file(tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[hosts]]\nname = "lab-01"\nssh = "lab@192.0.2.1"\ntarget = "/srv/bench"\n\n'
                     '[[hosts]]\nname = "lab-02"\nssh = "lab@192.0.2.2"\ntarget = "/srv/bench"\n')
    return hosts


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_hosts_table_does_not_scroll_sideways_where_it_fits_nor_show_a_stray_thumb(
        labtui_home, hosts_file, size):
    app = make_app(labtui_home, hosts_file=str(hosts_file))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        lines = screen_text(app).splitlines()
        header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Host", "State"])
        assert lines[header + 1].strip().startswith("lab-01") and lines[header + 2].strip().startswith("lab-02")
        assert lines[header + 3].strip() == "", lines[header + 3]  # under the rows: nothing, not a scrollbar thumb
        if size[0] >= 120:
            assert "Verdict" in lines[header]
            assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_the_hosts_file_hint_is_whole_at_80_columns(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="the Fleet screen")
        await pilot.pause()
        field = app.screen.query_one("#fleet-file", Input)
        assert len(field.placeholder) <= field.content_region.width, field.placeholder
        assert field.placeholder in screen_text(app)
        # What the hint no longer holds is in the status line, which wraps.
        assert "docs/many-hosts.md" in widget_text(app, "#fleet-status")


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_ctrl_s_in_the_hosts_file_field_opens_the_typed_file_and_starts(labtui_home, hosts_file, size):
    # Typed, then ctrl+s without Enter: the key did nothing (no hosts open yet, so no Start to run).
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="the Fleet screen")
        screen = app.screen
        await pilot.press("enter")  # the cursor into the hosts file field
        await wait_for(pilot, lambda: screen.query_one("#fleet-file", Input).has_focus, what="the field")
        app.run_active = True  # a run on the Run screen: Start must say so rather than reach the hosts
        await pilot.press(*str(hosts_file), "ctrl+s")
        await wait_for(pilot, lambda: [h.name for h in screen.hosts] == ["lab-01", "lab-02"], what="the typed file's hosts")
        await wait_for(pilot, lambda: "A run is going on the Run screen" in widget_text(app, "#fleet-status"),
                       what="Start's answer")
        assert screen.fleet is None


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_screen_keys_work_on_fleet_and_the_hosts_file_field_takes_the_cursor_only_on_enter(
        labtui_home, hosts_file, size):
    # Issue 39, item 3: f put the cursor in the hosts file field, so d or ? were typed into it.
    from labtui.results.store import Store
    from labtui.screens.disks import DisksScreen
    from labtui.screens.help import HelpScreen
    from labtui.settings import Settings

    Store(labtui_home).save_settings(Settings(hosts_file=str(hosts_file)))
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        field = screen.query_one("#fleet-file", Input)
        assert screen.query_one(DataTable).has_focus and field.value == str(hosts_file)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await pilot.press("escape")
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen), what="the Disks screen")
        await pilot.press("f")
        await wait_for(pilot, lambda: app.screen is screen, what="back on Fleet")
        assert field.value == str(hosts_file) and not field.has_focus
        await pilot.press("enter")  # the field, to give another file
        await wait_for(pilot, lambda: field.has_focus, what="the cursor in the field")
        await pilot.press("d")  # typed there (over the path, selected to be replaced), not obeyed
        assert field.value == "d" and app.screen is screen
        # A path typed quickly from the table: / moved focus by a deferred focus(), and the h after it opened History.
        from textual import events

        await pilot.press("escape")
        await wait_for(pilot, lambda: not field.has_focus, what="back on the hosts")
        for key, character in (("slash", "/"), ("h", "h"), ("w", "w")):
            app.post_message(events.Key(key, character))  # as the terminal's driver posts them, none waited for
        await wait_for(pilot, lambda: field.value == "/hw", what="/hw in the field")
        assert app.screen is screen


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_ctrl_s_asks_first_naming_the_profile_hosts_targets_file_and_time_and_n_starts_nothing(
        labtui_home, hosts_file, size, monkeypatch):
    # Ctrl+S wrote to every reachable host's disk without a question, where History's a and the Disks
    # screen's R ask first.
    from labtui.fleet import requests
    from labtui.fleet.session import Fleet
    from labtui.screens.confirm import ConfirmModal

    ran: list[int] = []

    async def run(self):
        ran.append(len(self.runs))

    monkeypatch.setattr(Fleet, "run", run)
    monkeypatch.setattr(requests, "ssh_program", lambda: "ssh")
    Store(labtui_home).save_settings(Settings(profile="quick-sanity", profile_origin="builtin"))
    app = make_app(labtui_home, hosts_file=str(hosts_file))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        before = widget_text(app, "#fleet-status")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.pause()
        asked = " ".join(widget_text(app, "#confirm-message").split())
        assert widget_text(app, "#confirm-title") == "Run quick-sanity on 2 hosts?"
        assert asked == ("quick-sanity (Quick sanity check) with native on 2 hosts, all together: each reachable "
                         "host writes to its own disk, at its target: /srv/bench: lab-01, lab-02 On each: 2 steps · "
                         "each step run 3 times: mean of 3 · about 1:14 + a 1GiB test file to write. "
                         "Enter or y starts it."), asked
        shown = screen_text(app)
        assert "Run (y)" in shown and "Not now (n)" in shown and "Enter or y starts it." in shown  # all on screen
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, what="back on Fleet")
        assert screen.fleet is None and not app.run_active and ran == []
        assert widget_text(app, "#fleet-status") == before
        app.unsaved_profile = "quick-sanity"  # edits in the Workload editor: they are not what runs
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question again")
        assert widget_text(app, "#confirm-message").startswith(
            "Your edits to quick-sanity are not saved: this runs the saved profile")
        assert "Run (y)" in screen_text(app)
        await pilot.press("enter")  # one key to go
        await wait_for(pilot, lambda: ran == [2], what="the fleet run")
        assert screen.fleet is not None
        # A host's live run is timed by the app's clock (fixed here), as the Run screen's is, not the system's.
        assert screen.fleet.clock() == app.clock().timestamp()


def _lab_of(tmp_path, count: int) -> Path:
    hosts = tmp_path / "lab32.toml"
    hosts.write_text("".join(f'[[hosts]]\nname = "lab-node-{i:02d}"\nssh = "lab@192.0.2.{i}"\ntarget = "/srv/b"\n\n'
                             for i in range(1, count + 1)))
    return hosts


def _play(screen: FleetScreen, *, finished: bool) -> None:
    """A fleet run of the screen's hosts as its events leave it (no ssh): every third host measuring its
    second step unless `finished`, the others completed with their results."""
    from labtui.engine.events import SampleTaken, StepStarted
    from labtui.fleet.host_run import COMPLETED, RUNNING
    from labtui.fleet.session import Fleet
    from labtui.model.result import Sample
    from synthetic import READ, WRITE, run_result

    fleet = Fleet(screen.hosts, lambda _h: {}, screen.lab.store)
    screen.fleet = fleet
    screen._fill(fleet.runs)
    for i, r in enumerate(fleet.runs):
        if i % 3 or finished:
            result = run_result(f"20240501-1000{i:02d}-beef", {READ: [1000 + 37 * i], WRITE: [800 + 11 * i]})
            r.results.append(result)
            r.finished_steps, r.state = list(result.steps), COMPLETED
        else:
            r.state, r.phase, r.step = RUNNING, "measure", StepStarted(1, 2, WRITE, 1, None)
            r.sample = SampleTaken(1, "measure", Sample(t=3.0, seconds=1.0, read_ios=0, read_bytes=0, write_ios=900,
                                                        write_bytes=900 * WRITE.block_size))
    screen._dirty = True
    screen._frame()


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_at_32_hosts_the_table_scrolls_between_the_status_line_and_the_summary(labtui_home, tmp_path, size):
    """At 32 hosts the whole screen scrolled: the status line and the fastest/slowest panel went off it;
    End scrolled the table sideways, cutting the first letter of every host name; completed rows lost
    their figures. At 80x24 every completed row folded "noise unknown (single runs)" over two lines (4 hosts
    on screen) and the summary's last line was cut off."""
    from labtui.fleet.summary import summarize_hosts
    from labtui.widgets.hosts_table import HostsTable

    app = make_app(labtui_home, hosts_file=str(_lab_of(tmp_path, 32)))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        _play(screen, finished=False)
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert any(line.strip().startswith("32 hosts in") for line in lines), lines[:6]
        row = next(line for line in lines if line.split()[:1] == ["lab-node-02"])
        assert row.split()[1:4] == ["completed", "811", "50.7"], row  # its last step's figures, kept
        running = next(line for line in lines if line.split()[:1] == ["lab-node-01"])
        assert running.split()[1:4] == ["measuring", "900", "56.2"], running
        _play(screen, finished=True)
        screen.summary = summarize_hosts([(r.name, r.result) for r in screen.fleet.runs], 5.0)
        screen._done(screen.fleet)
        await pilot.press("end")
        await pilot.pause()
        table = screen.query_one(HostsTable)
        assert table.cursor_row == 31 and table.scroll_x == 0, (table.cursor_row, table.scroll_x)
        lines = screen_text(app).splitlines()
        assert screen.scroll_y == 0 and "32 of 32 hosts completed" in lines[3], lines[:5]
        assert any(line.split()[:1] == ["lab-node-32"] for line in lines), "the last host, its name whole"
        heading = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Host", "State"])
        rows = lines[heading + 1:next(i for i in range(heading + 1, len(lines)) if not lines[i].strip())]
        assert len(rows) >= 9 and all(row.split()[0].startswith("lab-node-") for row in rows), rows  # a line each
        summary = widget_text(app, "#fleet-summary-text")
        assert "Read 64K random: fastest lab-node-32 (2,147 IOPS), slowest lab-node-01 (1,000 IOPS)" in summary
        assert summary.splitlines()[0] in "\n".join(lines) and summary.splitlines()[-1] in "\n".join(lines)
        assert "lab-node-32: lab@192.0.2.32" in widget_text(app, "#fleet-detail")


async def test_the_status_line_names_the_profile_chosen_since_on_workload(labtui_home, tmp_path):
    app = make_app(labtui_home, hosts_file=str(_lab_of(tmp_path, 3)))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        first = app.screen.lab.profile.name
        assert f"ctrl+s runs {first} on all of them together" in widget_text(app, "#fleet-status")
        await pilot.press("w")
        await wait_for(pilot, lambda: not isinstance(app.screen, FleetScreen), what="the Workload screen")
        from labtui.results.store import builtin_profiles

        other = next(p for p in builtin_profiles() if p.name != first)
        app.screen.lab.choose_profile(other)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="the Fleet screen")
        await pilot.pause()
        assert f"ctrl+s runs {other.name} on all of them together" in widget_text(app, "#fleet-status")


async def test_a_path_typed_straight_away_goes_into_the_hosts_file_field_and_opens(labtui_home, hosts_file):
    # Typed without Enter first, "/tmp/.../hosts.toml" went to the screen keys letter by letter: its w
    # opened Workload, its r the Run screen, its d Disks.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="the Fleet screen")
        screen = app.screen
        assert "Type the path of a hosts file, from / or ~" in " ".join(widget_text(app, "#fleet-status").split())
        await pilot.press(*str(hosts_file), "enter")
        await wait_for(pilot, lambda: [h.name for h in screen.hosts] == ["lab-01", "lab-02"], what="the hosts")
        assert app.screen is screen and screen.query_one("#fleet-file", Input).value == str(hosts_file)
        # Enter into the field again selects the path, to be replaced by what is typed.
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.query_one("#fleet-file", Input).has_focus, what="the field")
        await pilot.press("x")
        assert screen.query_one("#fleet-file", Input).value == "x"


async def test_the_fleet_footer_keeps_quit_whole_at_80_columns_while_the_hosts_run(labtui_home, tmp_path):
    # During a run it read "... r Run  h History  q Qui".
    from textual.widgets._footer import FooterKey

    from labtui.widgets.keys_footer import KeysFooter

    app = make_app(labtui_home, hosts_file=str(_lab_of(tmp_path, 3)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        _play(screen, finished=False)
        assert screen.running
        screen.refresh_bindings()
        await wait_for(pilot, lambda: "Stop all" in screen_text(app).splitlines()[-1], what="the running footer")
        footer = screen.query_one(KeysFooter)
        line = screen_text(app).splitlines()[-1]
        for key in ("? Help", "⏎ Host's run", "^x Stop all", "w Workload", "r Run", "h History", "q Quit"):
            assert key in line, (key, line)
        assert all(key.region.right <= footer.region.right for key in footer.query(FooterKey)), line


async def test_the_run_screens_overrides_reach_a_fleet_run_and_fleet_says_so_before_it_starts(
        labtui_home, hosts_file, monkeypatch):
    # A 5 s trial typed on the Run screen was not what Ctrl+S on Fleet ran: every host ran the profile's 10 s
    # steps, and nothing on Fleet said which.
    sent: list[dict] = []

    async def run(self):
        sent.extend(self._request(r.host) for r in self.runs)

    monkeypatch.setattr(Fleet, "run", run)
    monkeypatch.setattr(requests, "ssh_program", lambda: "ssh")
    Store(labtui_home).save_settings(Settings(profile="quick-sanity", profile_origin="builtin"))
    app = make_app(labtui_home, hosts_file=str(hosts_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        fleet = app.screen
        assert "ctrl+s runs quick-sanity on all of them together" in " ".join(widget_text(app, "#fleet-status").split())
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), what="the Run screen")
        await set_text(pilot, "#trial-duration", "5s")
        await set_text(pilot, "#trial-repeat", "1")
        await pilot.press("escape", "f")
        await wait_for(pilot, lambda: app.screen is fleet, what="back on Fleet")
        status = " ".join(widget_text(app, "#fleet-status").split())
        assert ("ctrl+s runs quick-sanity, overridden on the Run screen: duration 5s in every step (was 10s), "
                "every step run 1 time (was 3), on all of them together") in status, status
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        asked = " ".join(widget_text(app, "#confirm-message").split())
        assert asked.startswith("Overridden on the Run screen: duration 5s in every step (was 10s), every step run "
                                "1 time (was 3): clear the Override fields there to run the profile as it is. "
                                "quick-sanity (Quick sanity check, overridden) with native on 2 hosts"), asked
        assert "On each: 2 steps · about 0:15 + a 1GiB test file" in asked, asked  # the profile's own: 1:14
        assert "Run (y)" in screen_text(app) and "Enter or y starts it." in screen_text(app)  # whole at 80x24
        await pilot.press("y")
        await wait_for(pilot, lambda: len(sent) == 2, what="the hosts' requests")
    # What each host is sent is the profile as the overrides make it.
    ran = parse_profile_text(sent[0]["profile"], "the request")
    assert [s.duration for s in ran.steps] == [5.0, 5.0] and ran.repeat == 1 and ran.name == "quick-sanity"
    assert ran.description.startswith("quick-sanity overridden on the Run screen: duration 5s")


async def test_a_summary_longer_than_its_box_scrolls_by_shift_down_and_up_offered_only_then(labtui_home, tmp_path):
    """cdm-nvme's 8 steps at 80x24: the summary showed 3 of them, and only the mouse wheel (which did nothing:
    the panel was a Static, clipped) could show the rest."""
    from dataclasses import replace

    from labtui.fleet.host_run import COMPLETED
    from labtui.fleet.summary import summarize_hosts
    from labtui.widgets.fleet_summary import FleetSummary
    from synthetic import READ, run_result

    steps = [replace(READ, name=f"Step {i} random", block_size=4096 << i) for i in range(8)]
    app = make_app(labtui_home, hosts_file=str(_lab_of(tmp_path, 4)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen

        def offered() -> bool:
            return any(b.enabled for b in screen.active_bindings.values() if b.binding.action.startswith("scroll_summary"))

        assert not offered(), "no summary yet: nothing to scroll"
        fleet = Fleet(screen.hosts, lambda _h: {}, screen.lab.store)
        screen.fleet = fleet
        screen._fill(fleet.runs)
        for i, r in enumerate(fleet.runs):
            result = run_result(f"20240501-1000{i:02d}-beef", {s: [1000 + 100 * i * (j + 1)] for j, s in enumerate(steps)},
                                order=steps)
            r.results.append(result)
            r.finished_steps, r.state = list(result.steps), COMPLETED
        screen.summary = summarize_hosts([(r.name, r.result) for r in fleet.runs], 5.0)
        screen._done(fleet)
        await pilot.pause()
        assert offered() and "Step 7 random" not in screen_text(app)
        for _ in range(4):
            await pilot.press("shift+down")
        await pilot.pause()
        shown = screen_text(app)
        assert "Step 7 random: fastest lab-node-04" in shown and "Single runs cannot tell" in shown, shown
        assert app.focused is screen.query_one(DataTable), "the hosts keep the cursor"
        await pilot.press("shift+up")
        await pilot.pause()
        assert screen.query_one(FleetSummary).scroll_y < screen.query_one(FleetSummary).max_scroll_y
