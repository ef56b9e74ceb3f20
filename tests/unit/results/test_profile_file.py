"""The profile file format (labtui.results.profile_file): every built-in profile reads, writes and reads back the same."""

from dataclasses import replace
from importlib import resources

import pytest

from labtui.results.files import loads_toml
from labtui.results.profile_file import (
    PROFILE_SCHEMA,
    parse_profile_text,
    profile_from_table,
    profile_to_table,
    profile_to_text,
    step_to_table,
)
from labtui.results.store import Store, builtin_profiles
from labtui.tui.profile_draft import ProfileDraft

SHIPPED = sorted(e.name for e in (resources.files("labtui") / "profiles").iterdir() if e.name.endswith(".toml"))


def shipped_text(name: str) -> str:
    return (resources.files("labtui") / "profiles" / name).read_text(encoding="utf-8")


def test_every_shipped_file_is_a_builtin_profile():
    assert sorted(f"{p.name}.toml" for p in builtin_profiles()) == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_a_builtin_profile_round_trips_through_its_file_text(name):
    shipped = shipped_text(name)
    profile = parse_profile_text(shipped, name, origin="builtin")
    text = profile_to_text(profile)
    assert text.startswith(f"schema = {PROFILE_SCHEMA}\n")
    again = parse_profile_text(text, "written", origin="builtin")
    # Field by field (origin is not compared by Profile's ==: it says where a profile came from).
    assert again == profile and again.origin == profile.origin == "builtin"
    assert profile_to_text(again) == text  # writing what was read back changes nothing
    assert profile_from_table(profile_to_table(profile), origin="builtin") == profile
    # Nothing the shipped file says is lost in writing it out: its keys, and each step's, are all written.
    table, written = loads_toml(shipped), loads_toml(text)
    assert set(table) - {"schema"} <= set(written)
    assert len(table["steps"]) == len(written["steps"])
    for step, step_written in zip(table["steps"], written["steps"]):
        assert set(step) <= set(step_written)
    assert table.get("params", {}).keys() == written.get("params", {}).keys()


@pytest.mark.parametrize("name", SHIPPED)
def test_a_builtin_profile_saved_by_the_store_reads_back_as_a_user_profile(tmp_path, name):
    profile = parse_profile_text(shipped_text(name), name, origin="builtin")
    store = Store(tmp_path)
    path = store.save_profile(profile)
    assert path.read_text(encoding="utf-8") == profile_to_text(profile)
    mine = store.profile(profile.name)  # a user profile shadows the built-in of its name
    assert mine == profile and mine.origin == "user"


def test_a_steps_native_workers_is_written_only_where_set_and_the_editor_keeps_it():
    text = ('name = "dskspd"\n[[steps]]\nname = "Q2T16"\nthreads = 16\noutstanding = 2\n'
            'native_workers = "per-thread"\n')
    profile = parse_profile_text(text, "dskspd.toml")
    assert profile.steps[0].native_workers == "per-thread"
    assert parse_profile_text(profile_to_text(profile), "again.toml") == profile
    plain = replace(profile.steps[0], native_workers="")
    assert "native_workers" not in step_to_table(plain)
    draft = ProfileDraft(profile)
    draft.set_step_field(0, "threads", "8")
    assert draft.build().steps[0].native_workers == "per-thread"
