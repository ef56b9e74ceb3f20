"""The Run screen's quick trial (tui/quick_trial.py): duration, file size and repeat typed for one run."""

from __future__ import annotations

from textual.widgets import Input

from labtui.results.store import Store
from labtui.screens.run_driver import RunDriver
from run_support import MIB, prepare
from tui_support import (
    make_app,
    open_run,
    set_text,
    short_profile,
    wait_for,
    widget_text,
)


async def test_tags_and_a_quick_trial_typed_before_the_run_are_saved_with_it(labtui_home, target):
    prepare(labtui_home, target, text=short_profile(duration="1s"))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        # Typed as a person would, into the field the cursor is in: no letter starts the run untagged.
        await pilot.press(*"hp-adapter, slot-2")
        assert screen.state == "idle" and screen.runner is None
        # A quick trial (issue 39, item 6): the CLI's --duration, --file-size and --repeat, each
        # field showing the profile's own value until one is typed.
        fields = {f: screen.query_one(f"#trial-{f}", Input) for f in ("duration", "file-size", "repeat")}
        assert [f.placeholder for f in fields.values()] == ["1s", "16MiB", "1"]
        await pilot.press("shift+tab", "shift+tab", *"8M", "shift+tab", *"500ms", "tab", "tab", "tab")
        await wait_for(pilot, lambda: "(Short trial, overridden)" in widget_text(app, "#setup-profile"),
                       what="the profile as it would run")
        assert "a 8MiB test file to write" in widget_text(app, "#setup-profile")
        assert screen.query_one("#setup-tags", Input).has_focus
        await pilot.press("enter")  # Enter in the tags starts the run
        await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the run")
        said = "tiny overridden on the Run screen: duration 500ms in every step (was 1s), test file 8MiB (was 16MiB)"
        assert said in widget_text(app, "#done-title")
    results, _ = Store(labtui_home).load_results()
    assert results[0].tags == ("hp-adapter", "slot-2")
    assert results[0].profile.description == said and results[0].profile.title == "Short trial, overridden"
    assert results[0].profile.file_size == 8 * MIB and results[0].steps[0].step.duration == 0.5
    assert Store(labtui_home).load_settings().engine == "native"


async def test_a_quick_trial_the_profile_refuses_starts_nothing_and_says_which_field(labtui_home, target,
                                                                                     monkeypatch):
    prepare(labtui_home, target)
    started = []
    monkeypatch.setattr(RunDriver, "_preflight", lambda self, profile, *a, **k: started.append(profile))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_run(pilot)
        await set_text(pilot, "#trial-repeat", "1000")
        assert screen.query_one("#trial-repeat").has_class("-invalid")
        assert widget_text(app, "#run-message") == "Override repeat: must be from 1 to 100, got 1000"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: widget_text(app, "#run-message").startswith("Not started: "), what="the refusal")
        # Letters in a number field are said, naming the field, never dropped without a word.
        await set_text(pilot, "#trial-repeat", "two")
        assert widget_text(app, "#run-message") == "Override repeat: not a whole number: 'two'"
        await set_text(pilot, "#trial-repeat", "")
        await set_text(pilot, "#trial-duration", "3x")
        assert "Override duration: " in widget_text(app, "#run-message")
        await set_text(pilot, "#trial-duration", "300ms")
        assert widget_text(app, "#run-message") == "" and not screen.query(".-invalid")
        assert started == []
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: started, what="the run's checks")
    assert started[0].description == "tiny overridden on the Run screen: duration 300ms in every step (was 2s)"
