"""The Fleet screen against real sshd hosts: one row per host, live; Enter opens a host's run; stopping asks first."""

from __future__ import annotations

import pytest

from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.fleet import FleetScreen
from labtui.screens.fleet_host import FleetHostScreen
from labtui.settings import Settings
from sshlab import ssh_lab
from tui_support import make_app, short_profile, start_fleet, wait_for, widget_text

pytestmark = pytest.mark.slow


@pytest.fixture
def lab(tmp_path, disk_dir):
    with ssh_lab(tmp_path, disk_dir) as lab:
        yield lab


def _prepare(home, duration: str) -> None:
    store = Store(home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / "tiny.toml").write_text(short_profile("tiny", duration))
    store.save_settings(Settings(profile="tiny", profile_origin="user"))


def _cells(screen: FleetScreen, row: str) -> list[str]:
    from textual.widgets import DataTable

    table = screen.query_one(DataTable)
    return [str(getattr(c, "plain", c)) for c in table.get_row(row)]


async def test_every_host_gets_a_row_and_its_verdict_and_enter_opens_its_run(lab, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    _prepare(labtui_home, "2s")
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts file")
        screen = app.screen
        assert [_cells(screen, n)[:2] for n in ("alpha", "beta")] == [["alpha", "-"], ["beta", "-"]]
        await start_fleet(pilot)
        await wait_for(pilot, lambda: screen.fleet is not None and any(r.state == "running" for r in screen.fleet.runs),
                       what="a host running")
        await wait_for(pilot, lambda: _cells(screen, "alpha")[1] in ("measuring", "completed"), what="a live row")
        await wait_for(pilot, lambda: not app.run_active, timeout=90, what="the fleet run's end")
        await pilot.pause(0.6)
        alpha_row, beta_row = _cells(screen, "alpha"), _cells(screen, "beta")
        assert alpha_row[1] == "completed" and beta_row[1] == "completed", (alpha_row, beta_row)
        assert alpha_row[-1] == "reference" and beta_row[-1] == "noise unknown (single runs)"
        assert alpha_row[5], "the sparkline of the host's recent MiB/s"
        summary = widget_text(app, "#fleet-summary-text")
        assert "fastest" in summary and "slowest" in summary
        assert "2 of 2 hosts completed" in widget_text(app, "#fleet-status")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetHostScreen), what="the host's run")
        await pilot.pause(0.6)
        assert widget_text(app, "#fleet-host-status").startswith("alpha (root@127.0.0.2:")
        assert "completed" in widget_text(app, "#fleet-host-status")
        assert "read IOPS" in widget_text(app, "#fleet-host-figures")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="back to the hosts")
    results, _ = Store(labtui_home).load_results()
    assert sorted(t for r in results for t in r.tags) == ["host:alpha", "host:beta"]


async def test_stopping_asks_first_then_every_host_stops_and_cleans_up(lab, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    _prepare(labtui_home, "60s")
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts file")
        screen = app.screen
        await start_fleet(pilot)
        await wait_for(pilot, lambda: screen.fleet is not None
                       and all(r.phase == "measure" for r in screen.fleet.runs), timeout=60, what="both measuring")
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.run_active, timeout=30, what="every host stopped")
        assert [r.state for r in screen.fleet.runs] == ["aborted", "aborted"]
        assert all("stopped by the Fleet screen" in r.reason for r in screen.fleet.runs)
    for host in (alpha, beta):
        assert list(host.target.iterdir()) == [], f"a test file was left on {host.name}"
        assert not host.agents(), f"labtui still runs on {host.name}"
        assert len(host.result_files()) == 1, "the host keeps its own aborted result"
    results, _ = Store(labtui_home).load_results()
    assert sorted(r.status for r in results) == ["aborted", "aborted"]
