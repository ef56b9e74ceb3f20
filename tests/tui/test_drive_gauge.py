"""The drive beside a step's charts (widgets/drive_gauge.py): its temperatures, link and drops, on the result view."""

from __future__ import annotations

from labtui.model.result import DriveFacts
from tui_support import make_app, widget_text


async def test_the_result_screen_shows_the_drive_and_the_drop_of_the_step_under_the_cursor(labtui_home):
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import Drop
    from labtui.screens.result import ResultScreen

    result = make_result()
    hot = (DriveFacts(source="smartctl + sysfs", temperature_c=61.0, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                      pcie_width=4, aer_correctable=0),
           DriveFacts(source="smartctl + sysfs", temperature_c=84.0, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                      pcie_width=4, aer_correctable=0))
    drop = Drop(2.0, 5 * 1024**3, 1800.0, 420.0, "thermal", "the drive reached 83 °C at 2 s (its warning threshold is 82 °C)")
    steps = (replace(result.steps[0], drive_before=hot[0], drive_after=hot[1], drops=(drop,)), *result.steps[1:])
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultScreen(replace(result, steps=steps)))
        await pilot.pause()
        text = widget_text(app, "#step-drive")
        assert "Drive: 61 → 84 °C (max 84 °C, warning 82 °C), link 8.0 GT/s PCIe x4, no PCIe errors; smartctl + sysfs" \
            in text, text
        assert "Throughput drop at 2 s, after 5.0 GiB: 1,800 → 420 MiB/s (-77 %), thermal" in text
