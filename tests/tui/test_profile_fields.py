"""The Workload editor's words (tui/profile_fields.py): a field's label, a change as a description says it, and
the title and description a copy of a profile gives itself."""

from __future__ import annotations

from dataclasses import replace

from labtui.results.store import builtin_profiles
from labtui.tui.profile_fields import as_copy, change_text, described_against, edits_text, field_label

BUILTIN = builtin_profiles()
QUICK = next(p for p in BUILTIN if p.name == "quick-sanity")


def test_a_model_field_is_labelled_as_the_editor_labels_it():
    assert field_label("steps[2].threads") == "step 2, Threads"
    assert field_label("file_size") == "Test file"
    assert field_label("") == "the profile"  # a rule of the whole profile
    assert field_label("steps[1].no_such_key") == "step 1, no_such_key"  # never a KeyError


def test_each_kind_of_change_is_said_with_what_it_was():
    assert change_text("steps", "3", "2") == "3 steps (was 2)"
    assert change_text("steps[*].block_size", "4KiB", "64KiB") == "block size 4KiB in every step (was 64KiB)"
    assert change_text("file_size", "64MiB", "1GiB") == "test file 64MiB (was 1GiB)"
    assert change_text("steps[2].threads", "8", "4") == "step 2 threads 8 (was 4)"


def test_a_copy_says_what_it_changed_or_that_it_is_a_copy_and_keeps_words_of_its_own():
    edited = as_copy(QUICK, replace(QUICK, name="mine", file_size=64 << 20))
    assert edited.title == "Quick sanity check, edited"
    assert edited.description == "quick-sanity with test file 64MiB (was 1GiB)"
    same = as_copy(QUICK, replace(QUICK, name="same"))
    assert same.title == "Quick sanity check (copy)"
    assert same.description == f"A copy of quick-sanity: {QUICK.description}"
    own = as_copy(QUICK, replace(QUICK, name="own", title="Mine", description="My words", file_size=64 << 20))
    assert (own.title, own.description) == ("Mine", "My words")


def test_a_long_list_of_changes_names_four_and_counts_the_rest():
    many = replace(QUICK, name="many", file_size=64 << 20, repeat=5,
                   steps=tuple(replace(s, threads=1, outstanding=1, duration=2.0) for s in QUICK.steps))
    text = edits_text(QUICK, many)
    assert text.startswith("quick-sanity with ") and text.count("(was ") == 4
    assert text.endswith(" more changes"), text


def test_a_description_made_by_a_copy_names_the_profile_it_was_made_against():
    edited = as_copy(QUICK, replace(QUICK, name="mine", file_size=64 << 20))
    assert described_against(edited.description, BUILTIN) is QUICK
    assert described_against(f"A copy of quick-sanity: {QUICK.description}", BUILTIN) is QUICK
    assert described_against("My own words", BUILTIN) is None
    assert described_against("no-such-profile with block size 4KiB", BUILTIN) is None


def test_a_copys_title_follows_whether_it_differs_until_the_person_types_one():
    # Copied unedited ("Quick sanity check (copy)"), then edited: the description listed the changes, the title
    # still said "(copy)".
    from labtui.tui.profile_draft import ProfileDraft
    from labtui.tui.profile_fields import followed_title

    copy = replace(as_copy(QUICK, replace(QUICK, name="mine")), origin="user")
    draft = ProfileDraft(copy)
    assert followed_title(draft, BUILTIN) is None  # unedited: "(copy)" is true
    draft.set_field("file_size", "64M")
    draft.fields["description"] = edits_text(QUICK, draft.accepted())  # as the screen follows it
    assert followed_title(draft, BUILTIN) == "Quick sanity check, edited"
    draft.fields["title"] = "Quick sanity check, edited"
    draft.set_field("file_size", "1GiB")
    draft.fields["description"] = edits_text(QUICK, draft.accepted())
    assert followed_title(draft, BUILTIN) == "Quick sanity check (copy)"  # back as it was
    draft.set_field("title", "Mine")
    draft.set_field("file_size", "64M")
    assert followed_title(draft, BUILTIN) is None  # typed: the person's
