"""labtui.machine.writers: who besides this user could change what a path holds (as root: what labtui refuses).

(The store's use of it is tested in tests/unit/results/test_trust.py, a real other user's in
tests/system/test_files_as_root.py and test_store_as_root.py.)
"""

from __future__ import annotations

import os

import pytest

from hostile_user import hostile_user, shared_place
from labtui.machine.writers import foreign_link, others_can_write


def test_a_link_is_followed_to_where_it_leads_and_a_sticky_directory_is_passed_on_the_way(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    mine.chmod(0o755)
    assert others_can_write(mine / "export.csv") is None
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (mine / "out").symlink_to(shared)  # a name of mine that leads into a directory everyone can write
    assert others_can_write(mine / "out" / "export.csv") == f"{shared} can be written by every user (mode 0777)"
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    assert others_can_write(sticky / "export.csv") is None  # as /tmp: what is made there stays its maker's
    assert others_can_write(sticky) == f"{sticky} can be written by every user (mode 1777)"
    group = tmp_path / "group"
    group.mkdir()
    group.chmod(0o775)
    assert others_can_write(group / "fio").startswith(f"{group} can be written by the group ")


def test_as_root_a_link_another_user_made_or_could_replace_is_not_followed():
    # guard2: alice's /tmp/bench -> /mnt/other/dir sent root's test file to a disk nobody named (--yes showed
    # nothing). The kernel's fs.protected_symlinks rule, extended to every directory another user can write.
    if os.geteuid() != 0:
        pytest.skip("the rule is root's")
    with shared_place() as place, hostile_user("link", prefix="lt-guard2") as alice:
        other = place / "other" / "dir"
        other.mkdir(parents=True)
        home = place / "alice"
        home.mkdir()
        os.chown(home, alice.uid, alice.gid)
        alice.sh(f"ln -s {other} {home}/bench")
        said = foreign_link(home / "bench" / "deeper")
        assert said == (f"{home}/bench is a link to {other} and {alice.name} made it: as root labtui follows no link "
                        f"another user could have pointed elsewhere; give the directory itself (-t {other})")
        (place / "rootlink").symlink_to(home / "bench")  # root's link leading on to alice's: still hers
        assert foreign_link(place / "rootlink").startswith(f"{home}/bench is a link to {other} and {alice.name}")
        os.symlink(other, home / "roots")  # root's own link, in alice's directory: she could replace it
        os.lchown(home / "roots", 0, 0)
        assert f"it lies in {home}, which belongs to {alice.name}" in foreign_link(home / "roots")
        shared = place / "shared"
        shared.mkdir(mode=0o777)
        shared.chmod(0o777)
        (shared / "bench").symlink_to(other)
        assert "which other users can write (mode 0777)" in foreign_link(shared / "bench")
        shared.chmod(0o1777)  # as /tmp: a link of root's there is root's to change (the kernel follows it)
        assert foreign_link(shared / "bench") is None
        (place / "var-tmp").symlink_to("other/dir")  # root's link in root's directory: followed as before
        assert foreign_link(place / "var-tmp" / "new") is None and foreign_link(other) is None
