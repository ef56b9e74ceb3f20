"""labtui.machine.writers: who besides this user could change what a path holds (as root: what labtui refuses).

(The store's use of it is tested in tests/unit/results/test_trust.py, a real other user's in
tests/system/test_files_as_root.py and test_store_as_root.py.)
"""

from __future__ import annotations

from labtui.machine.writers import others_can_write


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
