"""The list of profiles (widgets/profile_list.py): each marked with where it comes from, a broken file named."""

from __future__ import annotations

from tui_support import make_app, open_workload, screen_text
from workload_support import typo_profile


async def test_a_broken_profile_file_is_listed_as_broken_and_named(labtui_home):
    profiles = typo_profile(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        assert "typo.toml (broken)" in screen_text(app)
        assert "unknown key 'threds'" in screen_text(app)  # said in the list, not in a toast
        assert not app._notifications
    assert (profiles / "typo.toml").exists()  # reported, never rewritten or deleted
