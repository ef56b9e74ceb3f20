"""The drive beside the charts: its temperature now (against its warning threshold), a sparkline of the step's
readings where there is room, its PCIe link, and the drops found; one line, hidden where the drive says nothing.

The Run screen feeds it the live step's readings (DriveSampled events, every few seconds) and, once the
step ends, its result (the drops); the Result screen a stored step.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from labtui.analysis.drops import drop_words
from labtui.model.result import DriveReading, Drop, StepResult
from labtui.render.drive import step_drive_line, temperature_spark

SPARK_MIN_WIDTH = 100  # columns from which the sparkline has room


class DriveGauge(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.said: Content | None = None

    def _say(self, content: Content | None) -> None:
        shown = content is not None and bool(content.plain)
        if self.display != shown:
            self.display = shown
        if content is not None and shown and content != self.said:
            self.said = content
            self.update(content)

    def show_live(self, readings: Sequence[DriveReading], drops: Sequence[Drop] = ()) -> None:
        """The live step's readings so far (latest last) and, once it ended, its drops."""
        if not readings and not drops:
            self._say(None)
            return
        parts: list[Content] = []
        temps = [r.temperature_c for r in readings if r.temperature_c is not None]
        if readings:
            now = readings[-1]
            if now.temperature_c is not None:
                hot = now.warning_c is not None and now.temperature_c >= now.warning_c
                limit = f" (warning {now.warning_c:g} °C)" if now.warning_c is not None else ""
                parts.append(Content.styled(f"Drive {now.temperature_c:g} °C{limit}",
                                            "bold $error" if hot else "bold"))
                if len(temps) > 1:
                    parts.append(Content(f"max {max(temps):g} °C"))
                    if self.app.size.width >= SPARK_MIN_WIDTH:
                        parts.append(Content(temperature_spark(temps, 16)))
            if now.pcie_width:
                parts.append(Content(f"link {now.link_gts or '?'} GT/s x{now.pcie_width}"))
            parts.append(Content.styled(now.source, "$text-muted"))
        lines = [Content(" · ").join(parts)] if parts else []
        lines += [Content.styled(f"Throughput drop {drop_words(d)}", "$warning") for d in drops[:2]]
        self._say(Content("\n").join(lines))

    def show_step(self, step: StepResult) -> None:
        """A finished step: the drive around it and its drops."""
        line = step_drive_line(step, spark=16 if self.app.size.width >= SPARK_MIN_WIDTH else 0)
        lines = [Content(f"Drive: {line}")] if line else []
        lines += [Content.styled(f"Throughput drop {drop_words(d)} ({d.evidence})", "$warning") for d in step.drops]
        self._say(Content("\n").join(lines) if lines else None)
