"""The one-line text prompt (screens/prompt.py), on a bare host app, judged by the value it dismisses with."""

from __future__ import annotations

from textual.widgets import Input

from labtui.screens.prompt import TextPrompt
from modal_host import NOTHING, run_modal
from tui_support import screen_text


async def test_prompt_returns_the_text_and_refuses_what_the_check_refuses():
    def check(text: str) -> str | None:
        return None if text.startswith("ok") else "must start with ok"

    async def try_bad_first(pilot):
        field = pilot.app.screen.query_one(Input)
        field.value = "bad"
        await pilot.press("enter")
        await pilot.pause()
        # Said as a sentence, as every dialog's refusal (the check's reason comes lowercase).
        assert pilot.app.result is NOTHING and "Must start with ok" in screen_text(pilot.app)
        field.value = "ok-name"
        await pilot.pause()

    assert await run_modal(TextPrompt("Name", "A name:", "ok", check=check), "enter", before=try_bad_first) == "ok-name"
    assert await run_modal(TextPrompt("Name", "A name:", "ok"), "escape") is None
