"""A profile's steps as a table (widgets/steps_table.py): fitted to its width, nothing cut (steps added, moved and
removed: test_workload_steps_screen.py)."""

from __future__ import annotations

from labtui.widgets.steps_table import StepsTable
from tui_support import make_app, open_workload, screen_text


async def test_the_steps_table_fits_its_width_whatever_profile_was_shown_before(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        table = screen.query_one(StepsTable)

        def fits() -> bool:
            return table.virtual_size.width <= table.scrollable_content_region.width

        for name in ("cdm-nvme", "quick-sanity"):
            screen._open(next(p for p in screen.profiles if p.name == name))
            await pilot.pause()
            assert fits(), name
            assert "off" in screen_text(app)  # the last column, Cache, is on screen
        name = next(c for c in table.columns.values() if c.key == "name")
        assert name.width == len("Write 64K random")  # measured for these rows again


async def test_the_steps_table_folds_long_step_names_at_80_columns_never_cutting_them(labtui_home):
    # configmgr-sql's steps differ only at their ends ("Read 64K random 60s" / "... 300s"): cut to
    # the column they read "Read 64K random 6…" and "Read 64K random 3…".
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        table = screen.query_one(StepsTable)
        profile = next(p for p in screen.profiles if p.name == "configmgr-sql")
        screen._open(profile)
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
        widths = {c.key.value: c.width for c in table.columns.values()}
        assert sum(widths.values()) + 2 * table.cell_padding * len(widths) <= table.size.width
        for i, step in enumerate(profile.steps):
            assert "…" not in "".join(str(c) for c in table.get_row_at(i))
            for key, whole in (("name", step.name), ("label", step.label())):
                lines = str(table.get_cell(str(i), key)).split("\n")
                assert " ".join(lines) == whole and all(len(line) <= widths[key] for line in lines), lines
            assert table.rows[table.ordered_rows[i].key].height == max(
                str(c).count("\n") + 1 for c in table.get_row_at(i))
        assert any("\n" in str(table.get_cell(str(i), key)) for i in range(len(profile.steps)) for key in ("name", "label"))


def test_a_verified_step_says_so_in_the_steps_list():
    from labtui.model.profile import Step
    from labtui.widgets.steps_table import step_cells

    assert step_cells(1, Step("w", block_size=1 << 20, pattern="sequential", write_percent=100, threads=1,
                              outstanding=4, verify=True), "w")[2] == "SEQ1M Q4T1 W verified"
    assert step_cells(2, Step("r", block_size=1 << 20), "r")[2] == "RND1M Q1T1 R"
