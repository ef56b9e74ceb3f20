"""A bare Textual app that pushes one modal and keeps the value it dismissed with: modals judged on their own."""

from __future__ import annotations

from textual.app import App

from tui_support import wait_for

NOTHING = object()


class Host(App):
    """Pushes one modal and keeps what it dismissed with."""

    def __init__(self, modal) -> None:
        super().__init__()
        self.modal = modal
        self.result = NOTHING
        self.cursor_blink = False

    def on_mount(self) -> None:
        self.push_screen(self.modal, self._done)

    def _done(self, value) -> None:
        self.result = value


async def run_modal(modal, *keys: str, size=(80, 24), before=None):
    app = Host(modal)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.screen is modal)
        if before is not None:
            await before(pilot)
        await pilot.press(*keys)
        await wait_for(pilot, lambda: app.result is not NOTHING, what="the modal to dismiss")
    return app.result
