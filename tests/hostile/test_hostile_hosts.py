"""A compromised lab host, as a real sshd on loopback runs it (tests/support/sshlab.py) with a scripted far end.

One `labtui run --hosts` on a terminal (a pty, wide enough that no reason folds; the live progress
as lines into a file, as `2>log` has it, where a host's warnings are said) meets six hosts
that one sshd serves, each running tests/hostile/far_end.py with its own scenario: escape codes and
markup in a warning, a save error, a path and stderr; a thousand results for one run request; a
result of 5 MB; a line of 20 MB; a 400-digit number; a result tagged as another host's. The terminal is not cleared,
the store keeps one result per host that sent one it may keep, each under the cap, tagged with the
name the hosts file gives, and each refusal is a line naming the host. The last host's entry says
allow_local_commands = true: its LocalCommand runs (the refusals are tests/unit/fleet/test_fleet_hosts.py's).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from conftest import labtui_cmd
from corpus import HOSTILE, RAW, assert_not_raw, shown
from factories import make_result
from labtui.fleet import wire
from labtui.model.result import HostInfo
from labtui.results.result_file import result_to_toml
from labtui.results.store import Store
from sshlab import SshLab
from terminal import on_terminal

pytestmark = pytest.mark.slow

FAR_END = Path(__file__).with_name("far_end.py")
SCENARIOS = ("escapes", "flood", "big", "long-line", "numbers", "host-tag")


@pytest.fixture
def lab(tmp_path):
    lab = SshLab(tmp_path / "lab", tmp_path / "targets")
    try:
        yield lab
    finally:
        lab.close()


def far_hosts(lab: SshLab, tmp_path: Path, scenarios=SCENARIOS) -> Path:
    """A hosts file whose hosts are one sshd, each running the far end with its scenario."""
    (tmp_path / "targets").mkdir(exist_ok=True)
    sshd = lab.add("far", "127.0.0.2")
    result = tmp_path / "result.toml"
    result.write_text(result_to_toml(make_result()))
    hello = shlex.quote(json.dumps(wire.hello(HostInfo(name="far"))))
    entries = [lab.entry(sshd) | {"name": f"far-{s}", "labtui": f"{sys.executable} {FAR_END} {s} {result} {hello}"}
               for s in scenarios]
    # (12) A host whose entry allows local commands runs its LocalCommand here (the others may not).
    allowed = entries[-1]
    allowed["ssh_options"] = [*allowed["ssh_options"], "-o", f"LocalCommand=touch {tmp_path / 'local-command-ran'}",
                              "-o", "PermitLocalCommand=yes"]
    allowed["allow_local_commands"] = True
    return lab.hosts_file(entries)


def test_a_compromised_host_cannot_clear_the_screen_fill_the_store_or_pose_as_another(lab, tmp_path, labtui_home):
    hosts = far_hosts(lab, tmp_path)
    code, output, stderr = on_terminal(labtui_cmd("run", "--hosts", str(hosts), "-p", "quick-sanity", "--yes"), columns=1000,
                                       stderr_to_file=True)
    assert code == 1, output + stderr
    assert_not_raw(output, terminal=True)
    assert_not_raw(stderr)
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", output).replace("\r\n", "\n").replace("\r", "\n")
    # The final hosts table, whole: a row per host (Host | Outcome | Result | Why).
    table = plain[re.search(r"(?m)^Hosts ", plain).start():]
    rows = {cells[0]: cells for cells in ([c.strip() for c in line.split("\u2502")] for line in table.splitlines())
            if cells[0].startswith("far-")}
    assert set(rows) == {f"far-{s}" for s in SCENARIOS}, table
    outcome = {name: cells[1] for name, cells in rows.items()}
    assert outcome == {"far-escapes": "failed", "far-flood": "failed", "far-big": "failed", "far-long-line": "failed",
                       "far-numbers": "failed", "far-host-tag": "completed"}, table
    header = next(line for line in table.splitlines() if line.startswith("Host "))
    column = [c.strip() for c in header.split("\u2503")].index("Why")  # the report's columns may change; Why stays
    why = {name: cells[column].removeprefix(f"{name}: ") for name, cells in rows.items()}
    # (7) A host's save error, warning and path, escape codes and markup in them, are shown, not obeyed.
    assert why["far-escapes"] == f"not saved on far-escapes: {shown('save_error ' + HOSTILE)}", why["far-escapes"]
    assert f"[far-escapes] warning: {shown('warning ' + HOSTILE)}" in stderr.splitlines()
    assert f"[far-escapes] step 1/2: step {shown(HOSTILE)}" in stderr.splitlines()
    # (9) One run request, one result: the 999 others are refused, in a line naming the host.
    assert why["far-flood"] == ("it sent 999 results more than the 1 its request asked for: refused, not kept (a host "
                                "sends one result per run; a check, one per pass)")
    assert f"[far-flood] failed: far-flood: {why['far-flood']}" in stderr.splitlines()
    # (9) A result over the cap is refused, its size said.
    assert re.fullmatch(r"a result of 5,\d{3},\d{3} bytes was refused \(a result is at most 4 MiB; labtui's largest "
                        r"are about 2 MB\)", why["far-big"]), why["far-big"]
    # (10) A 20 MB line ends the host, its size said: not "ended without its result (exit status 0)".
    assert re.fullmatch(r"line too long: it sent a line of 20,000,0\d\d bytes \(a message is at most 12 MiB\): the "
                        r"host was stopped", why["far-long-line"]), why["far-long-line"]
    # A number no labtui sends (400 digits, NaN, 1e400) ends the host, said: it was "ended without its result".
    assert why["far-numbers"] == ("it sent a line that does not read (a number of 401 digits is past what a count may "
                                  "be): the host was stopped"), why["far-numbers"]
    results, broken = Store(labtui_home).load_results()
    assert not broken
    kept = {next(t for t in r.tags if t.startswith("host:")): r for r in results}
    assert sorted(kept) == ["host:far-escapes", "host:far-flood", "host:far-host-tag"], [r.tags for r in results]
    assert sorted(t for r in results for t in r.tags if t.startswith("host:")) == sorted(kept)  # one host: tag each
    assert "host:victimhost" not in kept["host:far-host-tag"].tags
    assert (tmp_path / "local-command-ran").exists(), "allow_local_commands = true lets the host's LocalCommand run"


async def test_the_fleet_screen_shows_what_a_compromised_host_says_and_survives_a_resize(lab, tmp_path, labtui_home):
    from labtui.screens.fleet import FleetScreen
    from labtui.screens.fleet_host import FleetHostScreen
    from tui_support import make_app, screen_text, start_fleet, wait_for, widget_text

    hosts = far_hosts(lab, tmp_path, ("escapes", "long-line"))
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts file")
        screen = app.screen
        await start_fleet(pilot)
        await wait_for(pilot, lambda: screen.fleet is not None and all(r.ended for r in screen.fleet.runs)
                       and not app.run_active, timeout=60, what="the hosts' end")
        await pilot.pause(0.6)
        seen = [screen_text(app)]
        await pilot.resize_terminal(80, 24)  # the screen stayed blank after a resize
        await pilot.pause(0.6)
        seen.append(screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetHostScreen), what="the host's run")
        await pilot.pause(0.6)
        status, info = widget_text(app, "#fleet-host-status"), widget_text(app, "#fleet-host-info")
        seen.append(screen_text(app))
    for text in seen:
        assert RAW.search(text) is None, text
    assert "line too long: it sent a line of 20,000,0" in " ".join(seen[0].split())
    # Drawn again at 80x24, not blank: the host's row, its figures (kept on ended rows) and why it failed.
    assert re.search(r"far-escapes failed [\d,.\s-]*not saved on", " ".join(seen[1].split())), seen[1]
    assert status.endswith(f"failed: not saved on far-escapes: {shown('save_error ' + HOSTILE)}"), status
    assert f"warning: warning {shown(HOSTILE)}" in info and f"fio {shown(HOSTILE)}" in info, info
