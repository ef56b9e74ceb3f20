"""A box under a screen's main table that is as high as its text needs, up to a share of the screen (the
screen's stylesheet says how much); past that it scrolls by the screen's keys, a box at a time. It takes no
focus: Tab stays between the screen's field and its table, so the screen offers the keys only while the box
`overflows`."""

from __future__ import annotations

from textual.containers import VerticalScroll


class PagedBox(VerticalScroll, can_focus=False):
    """History's detail (`DetailBox`) and the Fleet screen's summary (`FleetSummary`)."""

    @property
    def overflows(self) -> bool:
        """Whether what it holds is longer than the box."""
        return self.max_scroll_y > 0

    def page(self, pages: int) -> None:
        """Scroll by `pages` boxes (less a line, kept for context); negative is up."""
        self.scroll_to(y=self.scroll_y + pages * max(1, self.scrollable_content_region.height - 1), animate=False)
