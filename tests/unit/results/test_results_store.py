"""The store: atomic and exclusive writes, unique names, tolerant reads that never touch a broken file."""

import errno
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import REPO, brief_profile, labtui_cmd
from factories import broken_files, make_result
from labtui.errors import NotFoundError, StoreError, ValidationError
from labtui.locations import data_home
from labtui.model.profile import Profile, Step
from labtui.results import store as store_module
from labtui.results.files import atomic_write
from labtui.results.store import Store
from labtui.settings import Settings

# --------------------------------------------------------------------------- where data lives


def test_labtui_home_overrides_data_and_settings(labtui_home):
    store = Store()
    assert store.home == labtui_home and store.config_dir == labtui_home
    assert store.results_dir == labtui_home / "results" and store.profiles_dir == labtui_home / "profiles"
    assert store.settings_path() == labtui_home / "config.toml"


def test_without_labtui_home_data_goes_to_the_xdg_dirs(monkeypatch, tmp_path):
    monkeypatch.delenv("LABTUI_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert data_home() == tmp_path / "data" / "labtui"
    assert Store().settings_path() == tmp_path / "config" / "labtui" / "config.toml"


# --------------------------------------------------------------------------- atomic writes


def hidden_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failed_update_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch, failing):
    store = Store(tmp_path)
    result, path = store.save_result(make_result())
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(StoreError, match="Input/output error"):
        store.update_result(replace(result, tags=("changed",)))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert hidden_files(path.parent) == []
    assert store.find_result(result.id) == result


@pytest.mark.parametrize("failing", ["fsync", "link"])
def test_a_failed_save_leaves_no_file_at_all(tmp_path, monkeypatch, failing):
    store = Store(tmp_path)
    store.results_dir.mkdir(parents=True)

    def boom(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(StoreError, match="No space left on device"):
        store.save_result(make_result())
    assert list(store.results_dir.iterdir()) == []


def test_exclusive_saves_never_overwrite(tmp_path):
    store = Store(tmp_path)
    first, first_path = store.save_result(make_result())
    squatter = store.results_dir / "20240501-103005-0000.toml"
    squatter.write_bytes(b"not mine")
    for taken in (first.id, squatter.stem):
        again, again_path = store.save_result(make_result(taken))
        assert again.id != taken and again_path.stem == again.id
        assert again_path.read_text().count(f'id = "{again.id}"') == 1
    assert squatter.read_bytes() == b"not mine"
    assert store.read_result(first_path) == first
    with pytest.raises(FileExistsError):
        atomic_write(first_path, "x = 1\n", exclusive=True)
    assert store.read_result(first_path) == first


def test_two_results_with_one_id_get_two_files_and_both_read_back(tmp_path):
    store = Store(tmp_path)
    one, one_path = store.save_result(make_result("same-id"))
    two, two_path = store.save_result(make_result("same-id", tags=("other",)))
    assert one.id == "same-id" and two.id != "same-id" and one_path != two_path
    good, broken = store.load_results()
    assert broken == [] and sorted(r.id for r in good) == sorted([one.id, two.id])
    assert store.find_result(two.id).tags == ("other",)


def test_an_id_that_is_not_a_file_name_gets_a_fresh_one(tmp_path):
    store = Store(tmp_path)
    result, path = store.save_result(make_result("../../escape"))
    assert path.parent == store.results_dir and result.id.startswith("20240501-103005-")
    assert not (tmp_path.parent / "escape.toml").exists()


def test_saves_without_hard_links_stay_exclusive(tmp_path, monkeypatch):
    # FAT and exFAT sticks refuse link(2); saving must still work and still never overwrite.
    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    store = Store(tmp_path)
    one, one_path = store.save_result(make_result("stick"))
    two, two_path = store.save_result(make_result("stick"))
    assert one.id == "stick" and two.id != "stick"
    assert store.read_result(one_path) == one and store.read_result(two_path) == two
    assert hidden_files(store.results_dir) == []


def test_new_files_follow_the_umask_and_updates_keep_the_mode(tmp_path):
    old = os.umask(0o022)
    try:
        store = Store(tmp_path)
        result, path = store.save_result(make_result())
        assert path.stat().st_mode & 0o777 == 0o644
        path.chmod(0o640)
        store.update_result(replace(result, tags=("x",)))
        assert path.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


SAVER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from factories import broken_files, make_result
from labtui.results.store import Store
store = Store(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    store.save_result(make_result("race", tags=(sys.argv[3], str(i))))
"""


def test_concurrent_saves_from_two_processes_lose_nothing(tmp_path):
    code = SAVER.format(tests=str(REPO / "tests" / "support"))
    count = 15
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(count), who]) for who in ("a", "b")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    good, broken = Store(tmp_path).load_results()
    assert broken == []
    assert len({r.id for r in good}) == 2 * count
    assert sorted(r.tags for r in good) == sorted((who, str(i)) for who in ("a", "b") for i in range(count))


# --------------------------------------------------------------------------- tolerant reads


EXPECTED_REASONS = {
    "empty": "empty file",
    "truncated": "cut short after",
    "garbage": "not UTF-8 text (byte 0x80 at offset 128)",
    "non-utf8": "not UTF-8 text (byte 0xf6",
    "wrong-schema": "schema 99 is not one this labtui reads",
    "missing-schema": "no schema number",
    "foreign": "no schema number",
    "unknown-key": "unknown key 'mood'",
    "missing-key": "missing 'status', 'ended'",
    "bad-status": "status 'great' is not one of",
    "wrong-type": "expected a whole number",
    "directory": "a directory, not a result file",
}


def snapshot(path: Path):
    info = path.stat()
    content = sorted(p.name for p in path.iterdir()) if path.is_dir() else path.read_bytes()
    return content, info.st_mtime_ns, info.st_mode


def test_broken_files_are_listed_with_a_reason_and_never_touched(labtui_home):
    store = Store()
    saved = [store.save_result(make_result(f"good-{i}", minutes=i))[0] for i in range(3)]
    paths = broken_files(store.results_dir)
    before = {name: snapshot(path) for name, path in paths.items()}

    good, broken = store.load_results()

    assert good == saved  # oldest first
    by_path = {b.path: b for b in broken}
    assert set(by_path) == set(paths.values())
    for name, path in paths.items():
        reason = by_path[path].reason
        assert reason and EXPECTED_REASONS[name] in reason, (name, reason)
        assert "\n" not in reason and str(path) not in reason
    assert {name: snapshot(path) for name, path in paths.items()} == before
    assert sorted(p.name for p in store.results_dir.iterdir()) == sorted(
        [f"{r.id}.toml" for r in saved] + [p.name for p in paths.values()])


def test_a_broken_file_found_by_id_is_an_error_naming_it(labtui_home):
    store = Store()
    paths = broken_files(store.results_dir)
    for name, path in paths.items():
        with pytest.raises(StoreError) as info:
            store.find_result(name)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_fifo_does_not_hang_the_listing(labtui_home):
    store = Store()
    store.save_result(make_result())
    os.mkfifo(store.results_dir / "pipe.toml")
    good, broken = store.load_results()
    assert len(good) == 1 and [b.reason for b in broken] == ["not a regular file"]


def test_a_fifo_as_config_toml_is_refused_in_one_line_not_waited_on(labtui_home, tmp_path):
    """config.toml names the programs labtui runs: read through one checked descriptor, never by name (a FIFO
    put there hung every command that reads the settings, the runner's and the TUI's start among them)."""
    import threading

    store = Store()
    store.settings_path().parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(store.settings_path())
    done = threading.Event()

    def writer() -> None:  # a read that waits is let go with an empty file, so the test fails, not hangs
        while not done.wait(0.05):
            try:
                os.close(os.open(store.settings_path(), os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                continue  # nobody reading: labtui did not wait on it

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        found = store.read_settings()
    finally:
        done.set()
        thread.join()
    assert found.broken == f"{store.settings_path()}: not a regular file" and found.settings == Settings()


def test_temp_files_are_not_results(labtui_home):
    store = Store()
    store.save_result(make_result())
    (store.results_dir / ".20240501.toml.abc.tmp").write_text("half")
    (store.results_dir / ".hidden.toml").write_text("half")
    (store.results_dir / "notes.txt").write_text("mine")
    good, broken = store.load_results()
    assert len(good) == 1 and broken == []


# --------------------------------------------------------------------------- finding and deleting


def test_find_by_id_or_unique_prefix(labtui_home):
    store = Store()
    a = store.save_result(make_result("20240501-103005-aaaa"))[0]
    b = store.save_result(make_result("20240501-103005-abbb"))[0]
    assert store.find_result("20240501-103005-aaaa") == a
    assert store.find_result("20240501-103005-ab") == b
    assert store.find_result(" 20240501-103005-aa ") == a
    with pytest.raises(NotFoundError, match="matches 2 results"):
        store.find_result("20240501")
    for key in ("", "nope", "../results/20240501-103005-aaaa", ".hidden", "a/b"):
        with pytest.raises(NotFoundError):
            store.find_result(key)
    # An empty or blank id is said to be one (show, compare, export, baseline and check all find results
    # here): "no result with id ''" left a person looking for a result.
    for key in ("", "  ", "\t"):
        with pytest.raises(NotFoundError, match="^an ID is empty: give a result's id or a unique beginning of it$"):
            store.find_result(key)


def test_delete_and_update(labtui_home):
    store = Store()
    result, path = store.save_result(make_result())
    store.update_result(replace(result, tags=("baseline",)))
    assert store.find_result(result.id).tags == ("baseline",)
    store.delete_result(result.id)
    assert not path.exists()
    with pytest.raises(NotFoundError):
        store.delete_result(result.id)
    with pytest.raises(NotFoundError):
        store.delete_result("../../etc/passwd")


def test_a_result_file_copied_in_under_another_name_is_found_updated_and_deleted_in_place(labtui_home):
    # Lab people copy results between machines as "adapter-a.toml"; tagging one must not leave a
    # second copy behind, and `show`/`compare` must find it by the id inside.
    store = Store()
    result, path = store.save_result(make_result("20240501-103005-cafe"))
    renamed = path.with_name("adapter-a.toml")
    path.rename(renamed)
    assert store.find_result("20240501-103005-cafe") == result
    assert store.find_result("20240501-103005-ca") == result
    assert store.locate_result(result.id) == renamed
    store.update_result(replace(result, tags=("adapter-a",)))
    assert store.result_files() == [renamed]
    assert store.find_result(result.id).tags == ("adapter-a",)
    store.delete_result(result.id)
    assert store.result_files() == []
    with pytest.raises(NotFoundError):
        store.locate_result(result.id)


# --------------------------------------------------------------------------- profiles and settings


def user_profile(name="my-test", **changes) -> Profile:
    return Profile(name=name, title="Mine", file_size=64 * 1024**2, steps=(Step(name="r", block_size=4096),), **changes)


def test_user_profiles_shadow_builtins_and_never_touch_them(labtui_home):
    store = Store()
    builtin = store.profile("quick-sanity")
    assert builtin.origin == "builtin"
    mine = replace(builtin, title="My sanity", repeat=3, origin="user")
    store.save_profile(mine)
    assert store.profile("quick-sanity") == mine and store.profile("quick-sanity").origin == "user"
    names = [(p.name, p.origin) for p in store.profiles()[0]]
    assert names.count(("quick-sanity", "builtin")) == 1 and names.count(("quick-sanity", "user")) == 1
    store.delete_profile("quick-sanity")
    assert store.profile("quick-sanity").origin == "builtin"
    with pytest.raises(StoreError, match="built-in"):
        store.delete_profile("quick-sanity")
    with pytest.raises(NotFoundError):
        store.delete_profile("never-saved")


def test_save_profile_exclusive_and_validated(labtui_home):
    store = Store()
    store.save_profile(user_profile())
    with pytest.raises(StoreError, match="already exists"):
        store.save_profile(user_profile(repeat=2), overwrite=False)
    assert store.profile("my-test").repeat == 1
    with pytest.raises(ValidationError):
        store.save_profile(user_profile(name="../evil"))
    assert not (labtui_home / "evil.toml").exists()


def test_a_profile_by_path(labtui_home, tmp_path):
    path = tmp_path / "elsewhere.toml"
    path.write_text('name = "whatever"\n[[steps]]\nname = "r"\nblock_size = "4K"\n')
    profile = Store().profile(str(path))
    assert profile.name == "whatever" and profile.origin == str(path)
    with pytest.raises(NotFoundError, match="no profile file"):
        Store().profile(str(tmp_path / "missing.toml"))
    # A profile's name typed as its file (a built-in's, a user profile's in the profiles folder) is said so.
    (labtui_home / "profiles").mkdir(exist_ok=True)
    (labtui_home / "profiles" / "mine.toml").write_text('name = "mine"\n[[steps]]\nname = "r"\nblock_size = "4K"\n')
    for typed, name in (("quick-sanity.toml", "quick-sanity"), ("mine.toml", "mine")):
        with pytest.raises(NotFoundError) as refused:
            Store().profile(typed)
        assert str(refused.value) == f"no profile file {typed}: {name} is a profile's name, give it without .toml"
    with pytest.raises(NotFoundError, match="^no profile file nothing.toml$"):
        Store().profile("nothing.toml")
    with pytest.raises(NotFoundError, match="known: .*quick-sanity"):
        Store().profile("no-such-profile")


def test_broken_user_profiles_are_listed_and_left_alone(labtui_home):
    store = Store()
    store.save_profile(user_profile())
    folder = store.profiles_dir
    files = {
        "typo.toml": 'name = "typo"\n[[steps]]\nname = "r"\nblok_size = "4K"\n',
        "garbage.toml": "\x00\x01 not toml",
        "renamed.toml": 'name = "original"\n[[steps]]\nname = "r"\n',
        "newer.toml": 'schema = 2\nname = "newer"\n[[steps]]\nname = "r"\n',
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    before = {name: (folder / name).read_bytes() for name in files}
    profiles, broken = store.profiles()
    assert [p.name for p in profiles if p.origin == "user"] == ["my-test"]
    reasons = {b.path.name: b.reason for b in broken}
    assert set(reasons) == set(files)
    assert "unknown key 'blok_size' (did you mean 'block_size'?)" in reasons["typo.toml"]
    assert "not valid TOML" in reasons["garbage.toml"]
    assert "name 'original' differs from the file name" in reasons["renamed.toml"]
    assert "schema 2" in reasons["newer.toml"]
    assert {name: (folder / name).read_bytes() for name in files} == before
    with pytest.raises(ValidationError, match="differs from the file name"):
        store.profile("renamed")


def test_an_unknown_profile_lists_only_the_profiles_that_load(labtui_home):
    store = Store()
    store.save_profile(user_profile())
    (store.profiles_dir / "garbage.toml").write_text("\x00 not toml")
    (store.profiles_dir / "typo.toml").write_text('name = "typo"\n[[steps]]\nname = "r"\nblok_size = "4K"\n')
    with pytest.raises(NotFoundError) as caught:
        store.profile("other")
    known = ", ".join(sorted([p.name for p in store.builtin_profiles()] + ["my-test"]))
    assert str(caught.value) == (f"no profile named 'other' (known: {known}); 2 profile files do not load: "
                                 "garbage.toml, typo.toml (labtui profiles says why)")
    (store.profiles_dir / "typo.toml").unlink()
    with pytest.raises(NotFoundError, match=r"\); 1 profile file does not load: garbage.toml \(labtui"):
        store.profile("other")


def test_settings_round_trip_and_a_broken_settings_file_is_left_alone(labtui_home):
    store = Store()
    assert store.load_settings() == Settings() and store.read_settings().broken is None
    store.save_settings(Settings(theme="nord", extra={"baseline": "20240501-103005-beef"}))
    assert store.load_settings() == Settings(theme="nord", extra={"baseline": "20240501-103005-beef"})
    store.settings_path().write_bytes(b"theme = \xff")
    assert store.load_settings() == Settings()
    assert str(store.settings_path()) in (store.read_settings().broken or "")
    assert store.settings_path().read_bytes() == b"theme = \xff"


def test_a_number_too_long_for_python_is_a_broken_file_not_a_crash(labtui_home):
    store = Store()
    store.profiles_dir.mkdir(parents=True)
    (store.profiles_dir / "huge.toml").write_text('name = "huge"\nrepeat = ' + "9" * 5000 + '\n[[steps]]\nname = "r"\n')
    store.results_dir.mkdir(parents=True)
    (store.results_dir / "huge.toml").write_text("schema = " + "9" * 5000 + "\n")
    _, broken = store.profiles()
    assert [b.path.name for b in broken] == ["huge.toml"] and "not valid TOML" in broken[0].reason
    _, broken = store.load_results()
    assert [b.path.name for b in broken] == ["huge.toml"]


def test_delete_broken_removes_only_a_file_of_the_results_folder_that_still_cannot_be_read(tmp_path):
    store = Store(tmp_path / "home")
    store.results_dir.mkdir(parents=True)
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("not = [toml")
    with pytest.raises(NotFoundError):
        store.delete_broken(outside)  # not one History lists
    with pytest.raises(NotFoundError):
        store.delete_broken(store.results_dir / "gone.toml")
    good = store.results_dir / "copied.toml"
    good.write_text(store_module.result_to_toml(make_result("20240501-103005-aaaa")))
    with pytest.raises(StoreError, match="now reads as the result 20240501-103005-aaaa: kept"):
        store.delete_broken(good)
    link = store.results_dir / "link.toml"
    link.symlink_to(outside)
    store.delete_broken(link)
    assert not os.path.lexists(link) and outside.exists() and good.exists()


def test_a_result_file_from_elsewhere_is_read_with_its_control_characters_escaped(labtui_home):
    from dataclasses import replace

    from factories import make_result

    store = Store(labtui_home)
    result = make_result("20240501-103005-aaaa")
    step = replace(result.steps[0], step=replace(result.steps[0].step, name="step\x1b[8m\x85hidden"))
    store.save_result(replace(result, steps=(step,) + result.steps[1:], error="boom\rover\u202eeman",
                              profile=replace(result.profile, title="t\x1bitle")))
    (back,) = store.load_results()[0]
    assert back.steps[0].name == "step\\x1b[8m\\x85hidden" and back.error == "boom\\x0dover\\u202eeman"
    assert back.profile.title == "t\\x1bitle"


def test_two_runs_saving_concurrently_both_land(disk_dir, labtui_home, tmp_path):
    procs = []
    profile = brief_profile(tmp_path, duration="1s")
    for n in (1, 2):
        target = disk_dir / f"conc{n}"
        target.mkdir()
        procs.append(subprocess.Popen(
            labtui_cmd("run", "-p", str(profile), "-t", str(target), "--file-size", "32M", "--yes", "--json",
                       "--tag", f"proc{n}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=os.environ | {"LABTUI_LOCK_DIR": str(tmp_path / f"locks{n}")},
        ))
    ids = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        ids.append(json.loads(out)["id"])
    assert len(set(ids)) == 2
    listed = json.loads(subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True,
                                       check=True).stdout)
    assert sorted(r["id"] for r in listed["results"]) == sorted(ids)
    assert sorted(t for r in listed["results"] for t in r["tags"]) == ["proc1", "proc2"]
    assert listed["broken"] == []


def test_a_result_with_counts_no_run_can_have_is_listed_as_broken(labtui_home):
    """A damaged or hand-edited file with a negative count is reported and skipped, never shown as '-5.0 IOPS'."""
    store = Store(labtui_home)
    result = make_result()
    _, path = store.save_result(result)
    text = path.read_text()
    assert "ios = " in text
    broken = path.with_name("damaged.toml")
    broken.write_text(re.sub(r"\bios = \d+", "ios = -5", text, count=1).replace(result.id, "20990101-000000-beef"))
    good, bad = store.load_results()
    assert [r.id for r in good] == [result.id]
    (item,) = bad
    assert item.path == broken and "ios = -5: a measured count cannot be negative" in item.reason
    assert broken.read_text().count("ios = -5") == 1, "the file is left as it is"


def test_a_link_to_nowhere_among_the_results_is_listed_as_broken(labtui_home, tmp_path):
    store = Store(labtui_home)
    store.save_result(make_result())
    link = store.results_dir / "moved-away.toml"
    link.symlink_to(tmp_path / "elsewhere.toml")
    rows, broken = store.summaries()
    assert len(rows) == 1
    (item,) = broken
    assert item.path == link and item.reason == f"a link to {tmp_path / 'elsewhere.toml'}, cannot read: No such file or directory"
    assert link.is_symlink(), "left as it is"


def test_as_root_a_profile_file_another_user_can_change_runs_no_command_step(tmp_path):
    """guard3: `labtui run -p /srv/shared/zpaq.toml` as root ran the shell lines of a file anyone could write.
    Its command steps are refused, in one line, where another user could change the file; I/O steps only shape
    the I/O on the target root named, and load as before."""
    if os.geteuid() != 0:
        pytest.skip("the check is root's")
    store = Store(tmp_path / "home")
    builtin = (REPO / "labtui" / "profiles" / "zpaq-extract.toml").read_text()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (shared / "zpaq.toml").write_text(builtin)
    (shared / "io.toml").write_text((REPO / "labtui" / "profiles" / "quick-sanity.toml").read_text())
    with pytest.raises(StoreError, match=rf"^{shared}/zpaq.toml: refused as root: its command steps run as root, and "
                                         rf"{shared} can be written by every user \(mode 0777\), who could change them"):
        store.profile_to_run(str(shared / "zpaq.toml"))
    assert store.profile(str(shared / "zpaq.toml")).name == "zpaq-extract"  # to look at (labtui profiles FILE)
    assert store.profile_to_run(str(shared / "io.toml")).name == "quick-sanity"
    mine = tmp_path / "mine.toml"
    mine.write_text(builtin)
    assert any(step.kind == "command" for step in store.profile_to_run(str(mine)).steps)
    os.chown(mine, 65534, -1)  # nobody's file: they could change what root runs
    with pytest.raises(StoreError, match=rf"^{mine}: refused as root: its command steps run as root, and {mine} "
                                         r"belongs to (\w+|uid 65534)"):
        store.profile_to_run(str(mine))


def test_a_profile_file_is_read_from_the_descriptor_that_was_checked(tmp_path, monkeypatch):
    # Checked by name, then read by name: whoever owns the folder could swap in a FIFO (labtui, as
    # root, hung on the read) or another file between the two.
    import os
    from pathlib import Path

    from labtui.results.store import load_profile_file

    checked = tmp_path / "mine.toml"
    checked.write_text('name = "mine"\n[[steps]]\nname = "r"\nblock_size = "4K"\nduration = "1s"\n')
    swapped = tmp_path / "other.toml"
    swapped.write_text(checked.read_text().replace('"r"', '"swapped"'))
    real_stat = Path.stat

    def stat_then_swap(self, *args, **kwargs):
        info = real_stat(self, *args, **kwargs)
        if self == checked:
            os.replace(swapped, checked)  # the swap, right after a check by name
        return info

    monkeypatch.setattr(Path, "stat", stat_then_swap)
    assert load_profile_file(checked).steps[0].name == "r"
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        load_profile_file(fifo)
