"""The box under History's list that holds the highlighted result's detail (`ResultDetail`): as high as the
detail needs, up to half the screen; past that it scrolls, by Shift+Down/Up (the list keeps Page Up/Down),
and the notifications sit above it, not over the lines they are about.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message

from labtui.widgets.paged_box import PagedBox
from labtui.widgets.result_detail import ResultDetail

# The screen's keys for it (the box takes no focus: Tab goes between the filter and the list). It scrolled
# only by the wheel where the detail was longer than its box; offered only then (`DetailBox.overflows`).
DETAIL_KEYS = [
    Binding("shift+down", "scroll_detail(1)", "Detail", id="history-detail-down",
            tooltip="Scroll the result's detail under the list down (where it is longer than its box)"),
    Binding("shift+up", "scroll_detail(-1)", "Detail up", id="history-detail-up", show=False,
            tooltip="Scroll the result's detail under the list up"),
]


class DetailBox(PagedBox):
    """Holds the detail (#history-detail); says when its height or its content's changed (Resized)."""

    class Resized(Message):
        """The box or the detail in it has a new size: the screen offers its scroll keys or not."""

    def compose(self) -> ComposeResult:
        yield ResultDetail(id="history-detail")

    def on_resize(self) -> None:
        # Notifications above the box and the footer: at a fixed 8 lines up, one covered a detail of up to
        # half the screen.
        above = self.outer_size.height + 1
        for rack in self.screen.query("#textual-toastrack"):
            rack.styles.margin = (0, 0, above, 0)
        self.post_message(self.Resized())
