"""The Fleet host screen of a host cut off mid-step: it shows where the run ended, not a run going on."""

from __future__ import annotations

from factories import cut_off_host
from labtui.screens.fleet_host import FleetHostScreen
from tui_support import make_app, wait_for, widget_text


async def test_a_host_cut_off_mid_step_shows_its_partial_step_and_why(labtui_home, tmp_path):
    beta = cut_off_host(tmp_path / "store")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(FleetHostScreen(beta))
        await wait_for(pilot, lambda: "step aborted" in widget_text(app, "#fleet-host-info"), what="the step's end")
        status = widget_text(app, "#fleet-host-status")
        assert "aborted: the link to beta dropped mid-run" in status and "measuring" not in status
        info = " ".join(widget_text(app, "#fleet-host-info").split())
        assert "step aborted: cut off mid-step: the figures are the 2 measured intervals that arrived" in info
        assert "read IOPS" in widget_text(app, "#fleet-host-figures")
