"""The manual's reference tables name everything labtui has: every option of every command in its section of
docs/cli.md, every config.toml key in docs/files.md, every key a screen binds in docs/tui.md's "Every key".

An option, a setting or a key added without a word in the manual fails here, with what to write where.
"""

from __future__ import annotations

import argparse
import re

from textual.binding import Binding

from labtui.app import LabtuiApp
from labtui.cli import build_parser
from labtui.screens.compare import CompareScreen
from labtui.screens.disks import DisksScreen
from labtui.screens.fleet import FleetScreen
from labtui.screens.fleet_host import FleetHostScreen
from labtui.screens.history import HistoryScreen
from labtui.screens.result import ResultScreen, StepList
from labtui.screens.run import RunScreen
from labtui.screens.top import SCREENS
from labtui.screens.workload import WorkloadScreen
from labtui.settings import _KEYS
from labtui.widgets.hosts_table import HostsTable
from labtui.widgets.profile_list import ProfileList
from labtui.widgets.steps_table import StepsTable
from labtui.widgets.volume_table import VolumeTable
from manual import headings, page, pages, section

# The section of docs/cli.md that documents each command (its heading), where it is not the command's name.
CLI_SECTION = {"check": "baseline and check", "baseline": "baseline and check", "completion": "Shell completion"}

# Where the "Every key" table says a key works, for the screens and the widgets on them that bind keys.
KEY_PLACES = {
    "Disks": (DisksScreen, VolumeTable),
    "Workload": (WorkloadScreen, StepsTable, ProfileList),
    "Run": (RunScreen,),
    "History": (HistoryScreen,),
    "Result": (ResultScreen, StepList),
    "Compare": (CompareScreen,),
    "Fleet": (FleetScreen, HostsTable, FleetHostScreen),
    "everywhere": (LabtuiApp,),
}

# How the table writes a key Textual names otherwise ("ctrl+s" is Ctrl+S, "f5" F5, a letter `x`).
KEY_WORDS = {"slash": "/", "tilde": "~", "question_mark": "?"}


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _mentions(text: str, option: str) -> bool:
    """`option` is a word of `text` (its table, its prose or its examples), not a part of a longer one."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_every_option_of_every_command_is_in_its_section_of_the_command_line_page():
    missing = []
    for name, parser in _commands().items():
        text = section("cli.md", CLI_SECTION.get(name, name))
        for action in parser._actions:
            names = [o for o in action.option_strings if o not in ("-h", "--help")]
            if names and not any(_mentions(text, o) for o in names):
                missing.append(f"{name} {'/'.join(names)}")
    assert not missing, f"say what these options do in their command's section of docs/cli.md: {missing}"


def test_labtuis_own_options_are_in_the_command_line_pages_opening():
    opening = page("cli.md").split("\n## ", 1)[0]
    own = [a.option_strings for a in build_parser()._actions if a.option_strings and "--help" not in a.option_strings]
    assert own and not [o for o in own if not any(_mentions(opening, s) for s in o)]


def test_an_option_is_a_whole_word():
    assert _mentions("| `-t DIR` | a directory |", "-t") and _mentions("labtui run -t DIR", "-t")
    assert _mentions("`--yes`, `-y`", "-y") and _mentions("`--param NAME=VALUE`", "--param")
    assert not _mentions("`--tolerance PCT`", "--tol") and not _mentions("--all-volumes", "--all")


def test_every_config_toml_key_is_in_the_settings_table():
    table = section("files.md", "Settings: config.toml")
    keys = set(re.findall(r"^\| ([^|]+) \|", table, re.M))
    named = {k for cell in keys for k in re.findall(r"`([a-z_]+)`", cell)}
    assert set(_KEYS) - named == set(), "add these config.toml keys to docs/files.md's settings table"
    assert named - set(_KEYS) == set(), "docs/files.md names config.toml keys labtui does not read"


def _key_cell(key: str) -> str:
    if key in KEY_WORDS:
        return KEY_WORDS[key]
    if len(key) == 1:
        return f"`{key}`"
    return "+".join(part.upper() if re.fullmatch(r"f\d+", part) else part.capitalize() for part in key.split("+"))


def _every_key_rows() -> list[tuple[str, str]]:
    rows = []
    for line in section("tui.md", "Every key").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("key", "---"):
            rows.append((cells[0], cells[1]))
    return rows


def _bindings(owner: type) -> list[Binding]:
    # The keys help and the palette list: a binding with an id (the screens' own, not Textual's plumbing).
    return [b for b in owner.BINDINGS if isinstance(b, Binding) and b.id]


def test_every_key_a_screen_binds_is_in_the_every_key_table():
    rows = _every_key_rows()
    missing = []
    for place, owners in KEY_PLACES.items():
        cells = " ".join(key for key, where in rows if place in where)
        for owner in owners:
            for binding in _bindings(owner):
                for key in binding.key.split(","):
                    if _key_cell(key) not in cells:
                        missing.append(f"{place}: {_key_cell(key)} ({binding.description})")
    assert not missing, f"add these keys to docs/tui.md's 'Every key' table: {missing}"


def test_keys_read_as_the_table_writes_them():
    assert [_key_cell(k) for k in ("ctrl+s", "f5", "x", "slash", "shift+up", "escape", "S")] == [
        "Ctrl+S", "F5", "`x`", "/", "Shift+Up", "Escape", "`S`"]


def _profile_key_rows() -> list[tuple[list[str], str]]:
    """The keys tables of docs/profiles.md: each row's keys and its default cell."""
    repetitions = "Repetitions, as CrystalDiskMark and KDiskMark make them"
    text = section("profiles.md", "Profile keys") + section("profiles.md", repetitions)
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("key", "---"):
            rows.append((re.findall(r"`([a-z_]+)`", cells[0]), cells[1]))
    return rows


def test_every_key_a_profile_file_may_hold_is_in_the_profiles_page():
    from dataclasses import fields

    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import PRESET_KEYS

    named = {key for keys, _ in _profile_key_rows() for key in keys}
    profile_keys = {"schema", "params", "steps"} | {f.name for f in fields(Profile)} - {"origin"}
    step_keys = {f.name for f in fields(Step)}
    missing = (profile_keys | step_keys | set(PRESET_KEYS)) - named - {"params", "steps"}
    assert not missing, f"say what these profile keys are in docs/profiles.md's tables: {sorted(missing)}"


def test_the_defaults_the_profiles_page_gives_are_labtuis():
    import tomllib

    from labtui.results.profile_file import profile_from_table

    def read(extra_profile: dict, extra_step: dict):
        return profile_from_table({"name": "p", **extra_profile, "steps": [{"name": "s", **extra_step}]})

    plain = read({}, {})
    checked = []
    for keys, default in _profile_key_rows():
        value = re.match(r"`([^`]+)`", default)
        # schema is no setting; a profile's pause and a step's share a name; native_workers' is config.toml's.
        if len(keys) != 1 or value is None or keys[0] in ("schema", "pause", "native_workers"):
            continue
        try:
            literal = tomllib.loads(f"v = {value.group(1)}")["v"]
        except tomllib.TOMLDecodeError:
            literal = value.group(1)  # a size or a duration, written bare
        key = keys[0]
        on_step = key in {"kind", "block_size", "pattern", "write_percent", "threads", "outstanding", "duration",
                          "warmup", "cooldown", "cache", "latency", "write_through", "verify"}
        given = read({}, {key: literal}) if on_step else read({key: literal}, {})
        assert given == plain, f"docs/profiles.md says {key} defaults to {value.group(1)}: labtui's default differs"
        checked.append(key)
    assert {"file_size", "block_size", "duration", "warmup", "cache", "aggregate"} <= set(checked)


def test_every_command_that_takes_json_has_a_row_of_its_keys():
    rows = " ".join(line.split("|")[1] for line in section("cli.md", "--json").splitlines() if line.startswith("| `"))
    takes_json = {name for name, parser in _commands().items() if any("--json" in a.option_strings for a in parser._actions)}
    assert {"run", "show", "compare", "check", "history"} <= takes_json
    assert not [name for name in takes_json if f"`{name}" not in rows], "give these commands a row in docs/cli.md's --json table"


def test_every_screen_has_its_section_and_its_letter_in_the_tui_page():
    tui = page("tui.md")
    assert {top.title for top in SCREENS.values()} | {"Result", "Compare"} <= set(headings(tui))
    assert not [top.title for top in SCREENS.values() if f"**{top.title}** (`{top.key}`)" not in tui]


def test_every_key_of_a_hosts_file_is_shown_in_an_example_of_the_many_hosts_page():
    from labtui.fleet.hosts import KEYS

    examples = "\n".join(re.findall(r"```toml\n(.*?)```", page("many-hosts.md"), re.S))
    assert not [k for k in KEYS if not re.search(rf"^{k} = ", examples, re.M)], "show these hosts-file keys in docs/many-hosts.md"


def _broken_tables(text: str) -> list[str]:
    """The first line of each run of table rows (outside code blocks) that is no table: no |---| line under it."""
    lines = re.sub(r"```.*?```", "", text, flags=re.S).splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))]
    return [lines[i] for i in starts if i + 1 >= len(lines) or not re.match(r"^\|[\s:|-]*-[\s:|-]*\|$", lines[i + 1])]


def test_no_table_of_the_manual_is_cut_in_two():
    broken = {name: rows for name, text in pages().items() if (rows := _broken_tables(text))}
    assert not broken, f"these rows are not in a table (a blank line or a paragraph cuts it): {broken}"
    assert _broken_tables("| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n") == ["| 3 | 4 |"]


def test_every_page_labtuis_code_points_to_is_in_the_repository():
    # A docstring that says "see DESIGN.md" sent a newcomer to a file the repository does not have (issue 40).
    from conftest import REPO

    named = {(path.relative_to(REPO).as_posix(), page_name) for path in (REPO / "labtui").rglob("*.py")
             for page_name in re.findall(r"[\w/.-]+\.md\b", path.read_text(encoding="utf-8"))}
    missing = sorted((where, name) for where, name in named if not (REPO / name).is_file())
    assert not missing, f"pages named in labtui/ that the repository does not have: {missing}"
