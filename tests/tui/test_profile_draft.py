"""Profile drafts: the editor's text checked by the model's own rules, field by field."""

from __future__ import annotations

import pytest

from labtui.errors import ValidationError
from labtui.results.store import builtin_profiles
from labtui.tui.profile_draft import ProfileDraft, changes

QUICK = next(p for p in builtin_profiles() if p.name == "quick-sanity")


def test_an_untouched_draft_is_clean_and_builds_the_same_profile():
    draft = ProfileDraft(QUICK)
    assert not draft.dirty and draft.errors() == {} and draft.build() == QUICK
    assert draft.steps[0].values["threads"] == "4"  # numbers are edited as text


def test_equal_spellings_are_not_an_edit():
    draft = ProfileDraft(QUICK)
    draft.set_step_field(0, "block_size", "64K")
    assert not draft.dirty
    draft.set_step_field(0, "block_size", "128K")
    assert draft.dirty and draft.step(0).block_size == 128 * 1024


def test_every_refused_field_gets_the_models_reason():
    draft = ProfileDraft(QUICK)
    draft.set_step_field(0, "threads", "0")
    draft.set_step_field(0, "duration", "soon")
    draft.set_step_field(1, "write_percent", "101")
    draft.set_field("repeat", "x")
    assert draft.errors() == {
        "steps[1].threads": "threads must be 1..256, got 0",
        "steps[1].duration": "'soon' is not a duration (use e.g. 500ms, 10s, 5m, 1h)",
        "steps[2].write_percent": "write percent must be within 0..100, got 101",
        "repeat": "must be a whole number, got 'x'",
    }
    assert draft.step(0) is None and draft.step(1) is None
    with pytest.raises(ValidationError):
        draft.build()


def test_rules_that_tie_fields_together_are_the_models():
    draft = ProfileDraft(QUICK)
    draft.set_step_field(0, "block_size", "1000")
    assert "multiple of 512" in draft.errors()["steps[1].block_size"]
    draft.set_step_field(0, "cache", "on")
    assert draft.errors() == {}
    draft.set_field("file_size", "512")
    assert draft.errors() == {"file_size": "the test file (512) is smaller than one block (1000)"}


def test_switching_kind_keeps_the_other_kinds_values():
    draft = ProfileDraft(QUICK)
    draft.set_step_field(1, "kind", "command")
    assert draft.errors() == {"steps[2].command": "a command step needs a command"}
    draft.set_step_field(1, "command", "sync")
    assert draft.build().steps[1].command == "sync"
    draft.set_step_field(1, "kind", "io")
    assert draft.build().steps[1] == QUICK.steps[1]


def test_a_profile_with_parameters_keeps_them_and_its_command_steps_keep_every_setting():
    zpaq = next(p for p in builtin_profiles() if p.name == "zpaq-extract")
    draft = ProfileDraft(zpaq)
    assert not draft.dirty and draft.errors() == {} and draft.build() == zpaq
    assert "warmup" not in draft.steps[0].table()  # a command has no warm-up
    draft.set_step_field(0, "command", "zpaq x {archive} -to {scratch} -threads 1")
    draft.set_step_field(0, "sync", False)
    built = draft.build()
    assert built.params == zpaq.params and built.steps[0].requires == ("zpaq",) and not built.steps[0].sync
    draft.set_step_field(0, "command", "zpaq x {archiv} -to {scratch}")
    assert "unknown placeholder {archiv}" in draft.errors()["steps[1].command"]


def test_steps_are_added_moved_and_removed_but_never_all():
    draft = ProfileDraft(QUICK)
    assert draft.add_step(0) == 1
    assert [s.values["name"] for s in draft.steps] == ["Read 64K random", "Read 64K random (copy)", "Write 64K random"]
    assert draft.move_step(1, 1) == 2
    assert draft.steps[2].values["name"] == "Read 64K random (copy)"
    draft.remove_step(2)
    draft.remove_step(1)
    with pytest.raises(ValidationError, match="at least one step"):
        draft.remove_step(0)
    assert len(draft.steps) == 1


def test_changes_name_what_an_edit_did_to_the_profiles_settings():
    draft = ProfileDraft(QUICK)
    draft.set_field("title", "Mine")  # not a setting: left out
    draft.set_field("file_size", "64M")
    for i in range(2):
        draft.set_step_field(i, "duration", "2s")  # every step alike: said once
    draft.set_step_field(1, "threads", "8")
    edited = draft.build()
    assert changes(QUICK, edited) == [
        ("file_size", "64MiB", "1GiB"), ("steps[*].duration", "2s", "10s"), ("steps[2].threads", "8", "4"),
    ]
    draft.add_step(0)
    assert ("steps", "3", "2") in changes(QUICK, draft.build())
    assert changes(QUICK, QUICK) == []


def test_a_step_name_made_from_its_fields_follows_them_until_one_is_typed():
    # Issue 39, item 8: block size 64K -> 4K left the step named "Read 64K random".
    draft = ProfileDraft(QUICK)
    draft.set_step_field(0, "block_size", "")  # on the way to the new value: refused, the name stays
    assert draft.steps[0].values["name"] == "Read 64K random"
    draft.set_step_field(0, "block_size", "4K")
    draft.set_step_field(1, "pattern", "sequential")
    assert [s.values["name"] for s in draft.steps] == ["Read 4K random", "Write 64K sequential"]
    assert draft.build().steps[0].name == "Read 4K random"
    draft.set_step_field(0, "write_percent", "30")
    assert draft.steps[0].values["name"] == "Mixed 70/30 4K random"
    draft.add_step(0)  # a copy's name follows its own fields, "(copy)" kept
    draft.set_step_field(1, "block_size", "1M")
    assert draft.steps[1].values["name"] == "Mixed 70/30 1M random (copy)"
    # Typed by the person: theirs, whatever the fields do next.
    draft.set_step_field(0, "name", "Small reads")
    draft.set_step_field(0, "block_size", "8K")
    assert draft.steps[0].values["name"] == "Small reads"


def test_requires_is_edited_as_a_line_of_program_names_and_native_workers_as_a_choice():
    zpaq = next(p for p in builtin_profiles() if p.name == "zpaq-extract")
    draft = ProfileDraft(zpaq)
    index = next(i for i, s in enumerate(zpaq.steps) if s.kind == "command")
    assert draft.steps[index].values["requires"] == "zpaq" and not draft.dirty
    draft.set_step_field(index, "requires", " zpaq,fio  tar ")
    assert draft.errors() == {} and draft.build().steps[index].requires == ("zpaq", "fio", "tar")
    assert changes(zpaq, draft.build()) == [(f"steps[{index + 1}].requires", "zpaq fio tar", "zpaq")]
    draft.set_step_field(index, "requires", " ")  # nothing required: the key is left out, as a file does
    assert draft.build().steps[index].requires == () and "requires" not in draft.steps[index].table()
    draft = ProfileDraft(QUICK)
    draft.set_step_field(0, "native_workers", "per-thread")
    assert draft.build().steps[0].native_workers == "per-thread"
    draft.set_step_field(0, "native_workers", "")
    assert not draft.dirty
