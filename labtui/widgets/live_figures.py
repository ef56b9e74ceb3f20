"""A step's figures as they run (now, mean, extremes), and the repaint-only-what-changed update they use.

Shared by the Run screen's live view and the Fleet screen's view of one host's run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from labtui.render.result_tables import fmt_iops, fmt_mib, fmt_ms

if TYPE_CHECKING:
    from textual.widgets import Static

    from labtui.run.live import FigureRow

NARROW = 100  # below this width one chart shows at a time


def figures_content(rows: list[FigureRow]) -> Content:
    """Now, mean over the measured time, and extremes per series; read and write in their theme colours.

    Laid out as a Rich table with a simple head would be (columns three cells apart, a rule under
    the head), but as Content: it is redrawn with every sample, and a table is measured and
    rendered three times per update.
    """
    formats = {"IOPS": fmt_iops, "MiB/s": fmt_mib, "%": lambda v: "-" if v is None else f"{v:.1f}"}
    labels, cells = [], []
    for row in rows:
        series = row.series
        fmt = formats.get(series.unit, fmt_ms)
        unit = f" {series.unit}" if series.unit in ("ms", "%") else ""
        labels.append((f"{series.direction} {series.quantity}".strip() + unit, series.direction))
        cells.append([fmt(v) if v is not None else "-" for v in (row.current, row.mean, row.minimum, row.maximum)])
    heads = ("now", "mean", "min", "max")
    label_width = max((len(label) for label, _ in labels), default=0)
    widths = [max([len(head)] + [len(c[i]) for c in cells]) for i, head in enumerate(heads)]
    gap = "   "
    lines = [Content.styled(" " * label_width + "".join(gap + h.rjust(w) for h, w in zip(heads, widths)), "bold"),
             Content("─" * (label_width + sum(len(gap) + w for w in widths)))]
    for (label, direction), values in zip(labels, cells):
        colour = {"read": "$labtui-read", "write": "$labtui-write"}.get(direction, "")
        lines.append(Content.assemble(
            Content.styled(label.ljust(label_width), colour) if colour else label.ljust(label_width),
            "".join(gap + v.rjust(w) for v, w in zip(values, widths))))
    return Content("\n").join(lines)


def paired_content(rows: list[FigureRow]) -> Content:
    """A step that reads and writes, where the rows are few (80x24): read and write side by side, one line
    per quantity, now and mean (the extremes are the wide table's and the result's). Nine rows of figures
    left the charts two lines at 80x24."""
    formats = {"IOPS": fmt_iops, "MiB/s": fmt_mib}
    by_quantity: dict[str, dict[str, FigureRow]] = {}
    machine: list[FigureRow] = []
    for row in rows:
        if row.series.direction in ("read", "write"):
            by_quantity.setdefault(row.series.quantity, {})[row.series.direction] = row
        else:
            machine.append(row)
    labels, cells = [], []
    for quantity, pair in by_quantity.items():
        unit = pair.get("read", pair.get("write"))
        assert unit is not None
        fmt = formats.get(unit.series.unit, fmt_ms)
        labels.append(quantity + (f" {unit.series.unit}" if unit.series.unit == "ms" else ""))
        values = []
        for direction in ("read", "write"):
            found = pair.get(direction)
            values += [fmt(v) if v is not None else "-" for v in ((found.current, found.mean) if found else (None, None))]
        cells.append(values)
    heads = (("read now", "$labtui-read"), ("mean", "$labtui-read"), ("write now", "$labtui-write"),
             ("mean", "$labtui-write"))
    label_width = max((len(label) for label in labels), default=0)
    widths = [max([len(head)] + [len(c[i]) for c in cells]) for i, (head, _) in enumerate(heads)]
    gap = "   "
    head_parts: list[Content | str] = [" " * label_width]
    for (head, colour), w in zip(heads, widths):
        head_parts += [gap, Content.styled(head.rjust(w), f"bold {colour}")]
    lines = [Content.assemble(*head_parts), Content("─" * (label_width + sum(len(gap) + w for w in widths)))]
    for label, values in zip(labels, cells):
        parts: list[Content | str] = [label.ljust(label_width)]
        for i, (v, w) in enumerate(zip(values, widths)):
            parts += [gap, Content.styled(v.rjust(w), heads[i][1])]
        lines.append(Content.assemble(*parts))
    for row in machine:  # the machine's CPU: neither direction's, said in words
        now = "-" if row.current is None else f"{row.current:.1f}"
        mean = "-" if row.mean is None else f"{row.mean:.1f}"
        lines.append(Content(f"{row.series.quantity} {row.series.unit}: {now} now, {mean} mean"))
    return Content("\n").join(lines)


def figures_for(rows: list[FigureRow], width: int) -> Content:
    """The figures as a screen `width` wide shows them: a mixed step's side by side where narrow."""
    if width < NARROW and {"read", "write"} <= {row.series.direction for row in rows}:
        return paired_content(rows)
    return figures_content(rows)


def show(widget: Static, content: Content) -> None:
    """Show `content` in `widget` unless it shows it already. The screen is laid out again only
    where the widget's size may change (other lines, or lines of other lengths): a new frame
    of figures of the same widths repaints just that widget."""
    old = widget.content
    if isinstance(old, Content) and old == content and old.spans == content.spans:
        return
    same_shape = isinstance(old, Content) and [line.cell_length for line in old.split("\n")] == [
        line.cell_length for line in content.split("\n")]
    widget.update(content, layout=not same_shape)
