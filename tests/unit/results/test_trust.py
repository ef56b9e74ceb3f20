"""Whether root may use a directory of labtui's own (labtui/results/trust.py): nobody else can write it, or the
way to it; each refusal says whose it is or what mode lets others in."""

from __future__ import annotations

import os
import stat

import pytest

from labtui.results import trust


def stat_of(mode: int, uid: int) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


def test_a_file_or_directory_of_labtuis_must_be_this_users_alone():
    me = os.geteuid()
    assert trust.not_private(stat_of(stat.S_IFDIR | 0o700, me)) is None
    assert trust.not_private(stat_of(stat.S_IFREG | 0o644, me), "file") is None
    assert trust.not_private(stat_of(stat.S_IFREG | 0o700, me)) == "it is not a directory"
    assert trust.not_private(stat_of(stat.S_IFDIR | 0o700, me), "file") == "it is not a regular file"
    assert trust.not_private(stat_of(stat.S_IFDIR | 0o775, me)) == "others can write it (mode 0775)"
    other = trust.not_private(stat_of(stat.S_IFDIR | 0o700, me + 4242))
    assert other == f"it belongs to uid {me + 4242}, not to {trust.user_name(me)}, who runs labtui"


def test_others_can_write_names_the_directory_on_the_way_and_its_mode(tmp_path):
    home = tmp_path / "home"
    data = home / "labtui"
    data.mkdir(parents=True)
    assert trust.others_can_write(data) is None
    assert trust.others_can_write(data / "not-made-yet") is None  # made by this user, then
    home.chmod(0o777)
    assert trust.others_can_write(data / "results") == f"{home} can be written by every user (mode 0777)"
    home.chmod(0o770)
    assert trust.others_can_write(data).startswith(f"{home} can be written by the group ")
    # A sticky directory (as /tmp) protects what is not its writers': passed on the way, not as itself.
    home.chmod(0o1777)
    assert trust.others_can_write(data) is None
    assert trust.others_can_write(home) == f"{home} can be written by every user (mode 1777)"


def test_a_link_is_followed_to_where_it_leads(tmp_path):
    shared = tmp_path / "shared"
    (shared / "labtui").mkdir(parents=True)
    shared.chmod(0o777)
    (tmp_path / "mine").mkdir()
    link = tmp_path / "mine" / "labtui"
    link.symlink_to(shared / "labtui")
    assert trust.others_can_write(link) == f"{shared} can be written by every user (mode 0777)"


def test_only_root_is_refused_and_the_refusal_says_what_to_do(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    if os.geteuid() == 0:
        said = trust.root_refusal([tmp_path, shared], "LABTUI_HOME")
        assert said == (f"{shared} can be written by every user (mode 0777): as root labtui does not use {shared}, "
                        "where config.toml names the programs it runs (fio, DiskSpd) and its files decide what it "
                        "deletes; make it root's alone (chown root, chmod go-w) or set LABTUI_HOME to a directory "
                        "only root can write")
        assert trust.root_refusal([tmp_path], "LABTUI_HOME") is None
    monkeypatch.setattr(trust.os, "geteuid", lambda: 4242)
    assert trust.root_refusal([shared], "LABTUI_HOME") is None, "anyone else keeps the directories they own"


@pytest.mark.parametrize(("uid", "name"), [(0, "root"), (2**31 - 7, f"uid {2**31 - 7}")])
def test_a_user_is_named_or_given_by_number(uid, name):
    assert trust.user_name(uid) == name
