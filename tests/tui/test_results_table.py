"""History's table of results (widgets/results_table.py): its cells, their widths at 80 and 120 columns, its sort keys."""

from __future__ import annotations

from labtui.results.store import Store
from labtui.screens.history import ResultsTable
from tui_support import (
    make_app,
    open_history,
    save_history,
    screen_text,
)


async def test_at_80_columns_many_imports_with_long_names_fit_without_scrolling_sideways(labtui_home):
    # Imported results are named after their files; with a screenful of them the vertical
    # scrollbar appears too, and still no row may need scrolling sideways.
    from dataclasses import replace
    from datetime import datetime

    from factories import make_result

    store = Store(labtui_home)
    for n in range(30):
        result = make_result(f"2024{n % 12 + 1:02d}01-103005-{n:04x}")
        store.save_result(replace(result, source="import", started=datetime(2024, n % 12 + 1, 1, 10, 30).astimezone(),
                                  profile=replace(result.profile, name=f"fio-3.43-clientserver-psync-{n}")))
    this_year = make_result("20250314-080000-abcd")
    store.save_result(replace(this_year, started=datetime(2025, 3, 14, 8, 0).astimezone()))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one(ResultsTable)
        assert table.max_scroll_y > 0
        assert table.virtual_size.width <= table.scrollable_content_region.width
        text = screen_text(app)
        # The clock says March 2025: this year's result by day and time, older ones with their year.
        assert "03-14 08:00" in text and "2024-12-01" in text and "fio-3.4" in text


async def test_at_80_columns_each_row_says_its_engine_and_tags(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one(ResultsTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        lines = screen_text(app).splitlines()

        def row(date: str) -> str:
            return next(line for line in lines if line.strip().startswith(date))

        # The DiskSpd import and the native runs look different, and so do the tagged ones.
        assert "diskspd" in row("2024-05-05") and "native" in row("2024-05-03")
        assert "hp-a" in row("2024-05-02") and "star" in row("2024-05-01") and "star" not in row("2024-05-03")
        # The figures are the first step's, said beside its label (issue 39, item 15: "3.0k/2.4k" said not whose).
        assert "Step" in next(line for line in lines if "Date" in line)
        assert all(" RND64K R  " in row(date) for date in ("2024-05-01", "2024-05-03", "2024-05-05"))
        assert "aborted" in row("2024-05-04") and "done" in row("2024-05-03")


async def test_figures_too_wide_for_their_column_are_shown_short_never_cut(labtui_home):
    """At 120 columns beside imports with long hosts, targets and profile names, two-step figures such as
    '1,125.0 / 1,812.5' MiB/s were cut to '1,125.…' (the write figure gone). The table now says the first
    step's figures, beside its label, whole; a column too narrow for them says them as at 80 columns."""
    from dataclasses import replace

    from synthetic import HOST, READ, TARGET, WRITE, run_result

    store = Store(labtui_home)
    for i in range(3):  # local runs of quick-sanity: 64 KiB steps of 18,000 and 29,000 IOPS
        store.save_result(run_result(f"20240601-09000{i}-aaa{i}", {READ: [18_000.0 + i], WRITE: [29_000.0 + i]},
                                     minutes=i, tags=("first",)))
    for i in range(3):  # imports named after their files, from hosts and paths of other machines
        store.save_result(run_result(f"20240501-09000{i}-bbb{i}", {READ: [2_161_519.0 + i]}, minutes=i,
                                     profile_name=f"fio-3.43-clientserver-{i}clients-randread4k-psync",
                                     host=replace(HOST, name=f"127.0.0.1:1880{i}"),
                                     target=replace(TARGET, path=f"/home/azureuser/fio-tests/run-{i}/testfile")))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await pilot.pause()
        table = screen.query_one(ResultsTable)
        keys = [c.key for c in table.columns]
        figures = [dict(zip(keys, row.cells, strict=True))[k] for row in table.rows for k in ("iops", "mib_s")]
        widths = {c.key: c.width for c in table.columns}
        assert all(len(str(cell)) <= widths[k] for row in table.rows
                   for k, cell in zip(keys, row.cells, strict=True) if k in ("iops", "mib_s")), (widths, figures)
        text = screen_text(app)
        row = next(line for line in text.splitlines() if "12:00" in line or "first" in line)
        assert "RND64K Q8T4 R" in row and "1,125.1" in row and "…" not in row.split("first")[-1], row


async def test_s_sorts_by_the_next_column_on_screen_not_one_left_out_at_80_columns(labtui_home):
    """At 80 columns host and target give way; `s` went date -> host, reordering the rows by nothing shown."""
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await pilot.pause()
        shown = [c.key for c in screen.query_one(ResultsTable).columns]
        assert "host" not in shown and "target" not in shown, shown
        from labtui.screens.history import SORTABLE

        seen = []
        for _ in range(len([c for c in shown if c in SORTABLE])):
            await pilot.press("s")
            await pilot.pause()
            seen.append(screen.sort_column)
        assert all(column in shown for column in seen), (seen, shown)
        assert seen[0] == "disk" and seen[-1] == "date", seen  # round the columns shown, back to the date
        screen.sort_by("host", False)  # from the palette: a column not on screen
        await pilot.press("s")
        assert screen.sort_column == "disk"  # the next one after it that is
