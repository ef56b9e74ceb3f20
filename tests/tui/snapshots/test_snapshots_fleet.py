"""The Fleet screen: with no hosts file yet, and with a lab's hosts listed before the start."""

from __future__ import annotations

from labtui.screens.fleet import FleetScreen
from tui_support import each_size, make_app, wait_for

HOSTS = ('[[hosts]]\nname = "lab-01"\nssh = "lab@192.0.2.1"\ntarget = "/srv/bench"\n\n'
         '[[hosts]]\nname = "lab-02"\nssh = "lab@192.0.2.2"\ntarget = "/srv/bench"\n')


def test_fleet_without_a_hosts_file(snap_compare, labtui_home):
    async def ready(pilot):
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FleetScreen), what="the Fleet screen")
        await pilot.pause()

    assert snap_compare(make_app(labtui_home), terminal_size=(80, 24), run_before=ready)


@each_size
def test_fleet_with_its_hosts(snap_compare, labtui_home, tmp_path, monkeypatch, size):
    # A hosts file named as a person in their lab folder would (the path is on screen).
    (tmp_path / "hosts.toml").write_text(HOSTS)
    monkeypatch.chdir(tmp_path)

    async def ready(pilot):
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FleetScreen) and pilot.app.screen.hosts,
                       what="the hosts")
        await pilot.pause()

    assert snap_compare(make_app(labtui_home, hosts_file="hosts.toml"), terminal_size=size, run_before=ready)
