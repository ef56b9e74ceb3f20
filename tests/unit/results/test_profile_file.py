"""The profile file format (labtui.results.profile_file): every built-in profile reads, writes and reads back the same."""

import time
from dataclasses import replace
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli_calls import one_line_error, run
from labtui.errors import LabtuiError
from labtui.model.profile import Profile
from labtui.results.files import dumps_toml, loads_toml
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


DEEP = 100_000  # far past Python's recursion limit


def test_a_deeply_nested_profile_is_a_clear_error(labtui_home, tmp_path):
    deep = Store(labtui_home).profiles_dir / "deep.toml"
    deep.parent.mkdir(parents=True)
    deep.write_text('name = "deep"\nx = ' + "[" * DEEP + "]" * DEEP + "\n")
    message = one_line_error(run("run", "-p", str(deep), "-t", str(tmp_path), "--yes"))
    assert f"{deep}: not valid TOML: nested too deeply to read" in message
    listed = run("profiles")
    assert listed.returncode == 0 and "quick-sanity" in listed.stdout
    assert f"skipped {deep}: not valid TOML: nested too deeply" in listed.stderr.replace("\n", "")


def test_a_huge_profile_is_refused_at_once(labtui_home, tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "w") as handle:
        handle.write('name = "big"\n')
        handle.write("# padding\n" * 5_000_000)  # 50 MB
    started = time.monotonic()
    message = one_line_error(run("run", "-p", str(big), "-t", str(tmp_path), "--yes"))
    assert time.monotonic() - started < 30  # not the minutes tomllib would take (no timing claim beyond that)
    assert f"{big}: 50,000,013 bytes is too large for a profile file (at most 1,048,576)" in message


PROFILE_TEXTS = [dumps_toml(profile_to_table(p)) for p in builtin_profiles()]
TOKENS = ["0", "-1", "1e99", "nan", "inf", '"64K"', '"0"', '"-5s"', "true", "[]", "{}", '"random"', '"x"',
          "4097", '"1Q"', "1.5", '""', "999999999999999999999"]


@st.composite
def mutated_profile(draw) -> str:
    text = draw(st.sampled_from(PROFILE_TEXTS))
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "drop", "dup", "key", "truncate", "garbage"]))
        line = lines[i]
        if action == "value" and "=" in line:
            lines[i] = line.split("=", 1)[0] + "= " + draw(st.sampled_from(TOKENS))
        elif action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, line)
        elif action == "key" and "=" in line:
            lines[i] = draw(st.sampled_from(["blocksize", "threads", "pattern", "kind", "steps"])) + " =" + line.split("=", 1)[1]
        elif action == "truncate":
            lines[i] = line[: draw(st.integers(0, len(line)))]
        elif action == "garbage":
            lines[i] = draw(st.text(max_size=20))
        if not lines:
            break
    return "\n".join(lines)


@given(st.one_of(mutated_profile(), st.text(max_size=200)))
@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])
def test_profile_loader_returns_a_valid_profile_or_a_clear_error(text):
    try:
        profile = parse_profile_text(text, "fuzz.toml")
    except LabtuiError as exc:
        assert "fuzz.toml" in str(exc)
    else:
        assert isinstance(profile, Profile)
        profile.validate()
