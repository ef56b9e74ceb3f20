"""The Fleet screen's table at 80 and 120 columns: within the screen at 120 (the verdict takes what
the other columns leave), and no stray scrollbar at 80, where the verdict is in the detail line."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from labtui.screens.fleet import FleetScreen
from tui_support import make_app, screen_text, wait_for


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
