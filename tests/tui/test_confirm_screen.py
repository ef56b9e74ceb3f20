"""The yes/no question (screens/confirm.py), on a bare host app, judged by the value it dismisses with."""

from __future__ import annotations

from labtui.screens.confirm import ConfirmModal
from modal_host import run_modal


async def test_confirm_yes_no_escape_and_the_safe_default():
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "y") is True
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "n") is False
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "escape") is False
    assert await run_modal(ConfirmModal("Delete?", "Really?", danger=True), "enter") is False
    assert await run_modal(ConfirmModal("Save?", "Go on?"), "enter") is True
