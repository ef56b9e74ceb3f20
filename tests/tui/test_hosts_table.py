"""The Fleet screen's hosts table (widgets/hosts_table.py) at 80 and 120 columns: why a host failed on one line,
long names folded."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from labtui.results.store import Store
from labtui.screens.fleet import FleetScreen
from labtui.settings import Settings
from sshlab import require_sshd
from tui_support import make_app, screen_text, start_fleet, wait_for, widget_text


def _refused_hosts(tmp_path) -> Path:
    """Two hosts whose ssh is refused at once (nothing listens on port 1): each ends with a long reason."""
    require_sshd()
    hosts = tmp_path / "refused.toml"
    entry = ('[[hosts]]\nname = "{}"\nssh = "lab@127.0.0.1"\nport = 1\ntarget = "/srv/bench"\n'
             'ssh_options = ["-F", "/dev/null", "-o", "BatchMode=yes"]\n')
    hosts.write_text(entry.format("lab-01") + "\n" + entry.format("lab-02"))
    return hosts


def _cell_lines(lines: list[str], host: str, state_at: int, at: int) -> list[str]:
    """The lines of the cell at column `at` in `host`'s row: down to the next row (a state shown) or a blank line."""
    first = next(i for i, line in enumerate(lines) if line.split()[:1] == [host])
    cell = [lines[first][at:].strip()]
    for line in lines[first + 1:]:
        if not line.strip() or line[state_at:at].strip():
            break
        cell.append(line[at:].strip())
    return [c for c in cell if c]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_why_a_host_failed_is_one_line_in_its_row_and_whole_in_the_detail_and_its_own_view(
        labtui_home, tmp_path, size):
    # At 80x24 an unreachable host's ssh error folded over ~8 lines of the verdict column.
    from labtui.printable import printable
    from labtui.screens.fleet_host import FleetHostScreen
    from labtui.widgets.hosts_table import HostsTable

    Store(labtui_home).save_settings(Settings(profile="quick-sanity", profile_origin="builtin"))
    app = make_app(labtui_home, hosts_file=str(_refused_hosts(tmp_path)))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        await start_fleet(pilot)
        await wait_for(pilot, lambda: screen.fleet is not None and all(r.ended for r in screen.fleet.runs)
                       and not app.run_active, timeout=60, what="both hosts refused")
        await wait_for(pilot, lambda: "Connection refused" in widget_text(app, "#fleet-detail"), what="the detail")
        await pilot.pause()
        first = screen.fleet.runs[0]
        reason = first.reason.removeprefix("lab-01: ")
        assert reason.startswith("ssh lab@127.0.0.1:1 failed: ssh: connect to host 127.0.0.1 port 1: "), reason
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if line.split()[:2] == ["Host", "State"])
        at = header.index("Step / verdict" if size[0] < 120 else "Verdict")
        # Where the row and the detail line say the host already, its row says what went wrong.
        assert _cell_lines(lines, "lab-01", header.index("State"), at) == ["Connection refused"]
        assert reason in " ".join(widget_text(app, "#fleet-detail").split())
        # Nothing came home: the status line does not send the person to History for it.
        assert "0 of 2 hosts completed; no host sent a result" in " ".join(widget_text(app, "#fleet-status").split())
        # A reason longer than the column, with a hostile host's escapes: one line, cut, no escape in it.
        second = screen.fleet.runs[1]
        long = ("ssh lab@127.0.0.1:1 failed: \x1b[31mHost key verification failed\x1b[0m for the key "
                "SHA256:q1w2e3r4t5y6u7i8o9p0 offered by the host, \x1b]0;pwned\x07which differs from known_hosts line 12")
        second.reason = printable(f"lab-02: {long}")  # as the session keeps a host's words
        screen._redraw()
        table = screen.query_one(HostsTable)
        table.move_cursor(row=1)
        await pilot.pause()
        lines = screen_text(app).splitlines()
        cell = _cell_lines(lines, "lab-02", header.index("State"), at)
        assert len(cell) == 1 and cell[0].endswith("…") and cell[0].startswith("Host key verification"), cell
        assert "x1b" not in cell[0] and "[31m" not in cell[0] and "pwned" not in cell[0], cell
        assert table.virtual_size.width <= table.scrollable_content_region.width, "the table scrolls sideways"
        assert printable(long) in " ".join(widget_text(app, "#fleet-detail").split())  # whole, escapes shown
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetHostScreen), what="the host's own view")
        await pilot.pause(0.6)
        assert printable(long) in " ".join(widget_text(app, "#fleet-host-status").split())


def test_a_failure_cell_drops_escape_sequences_raw_or_shown_and_cuts_at_a_word():
    from hostile.corpus import HOSTILE
    from labtui.fleet.host_run import UNREACHABLE, HostRun
    from labtui.fleet.hosts import Host
    from labtui.printable import plain_words, printable
    from labtui.render.words import one_line
    from labtui.widgets.hosts_table import failure_words

    assert plain_words(HOSTILE) == plain_words(printable(HOSTILE)) == (
        "evil click me ok FAKE evil [/] [red] [link=https://evil.example]link[/link] [@click=app.quit]quit[/] end")
    run = HostRun(Host(name="lab-09", ssh="lab@10.0.0.9", port=2222))
    run.state, run.reason = UNREACHABLE, ("lab-09: ssh lab@10.0.0.9:2222 failed: lab@10.0.0.9: Permission denied "
                                          "(publickey,password).")
    assert failure_words(run) == "Permission denied (publickey,password)."
    assert one_line(failure_words(run), 30) == "Permission denied (publickey…"
    assert one_line(failure_words(run), 20) == "Permission denied…"
    assert one_line("Connection refused", 30) == "Connection refused"


async def test_a_long_host_name_folds_and_the_last_heading_stays_whole_at_80_columns(labtui_home, tmp_path):
    hosts = tmp_path / "long.toml"
    hosts.write_text('[[hosts]]\nname = "lab-nvme-startech-adapter-slot-2"\nssh = "lab@192.0.2.1"\ntarget = "/srv/b"\n\n'
                     '[[hosts]]\nname = "lab-02"\nssh = "lab@192.0.2.2"\ntarget = "/srv/b"\n')
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Host", "State"])
        assert lines[header].rstrip().endswith("Step / verdict"), lines[header]
        assert [line.split()[0] for line in lines[header + 1:header + 5]] == \
            ["lab-nvme-", "startech-", "adapter-slot-2", "lab-02"], lines[header:header + 5]
        assert "…" not in "\n".join(lines)
        table = app.screen.query_one(DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width, "the table scrolls sideways"


def test_a_hosts_room_refusal_reads_in_the_tuis_words_in_its_row():
    from labtui.fleet.host_run import REFUSED, HostRun
    from labtui.fleet.hosts import Host
    from labtui.widgets.hosts_table import verdict_text

    run = HostRun(Host(name="lab-02", ssh="lab@192.0.2.2"))
    run.state, run.reason = REFUSED, ("lab-02: not enough free space on /srv. Make room: a smaller test file "
                                      "(--file-size, at most 8MiB), another target (-t DIR) or, for the profile, "
                                      "a smaller file_size or free_space_margin in its file.")
    said = verdict_text(run, None)
    assert "Override file size on the Run screen, at most 8MiB" in said and "--file-size" not in said and "-t DIR" not in said
