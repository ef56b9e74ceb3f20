"""Reading a file through one checked descriptor (labtui.machine.checked_read): what is refused, and why."""

from __future__ import annotations

import os
import socket
import stat

import pytest

from labtui.machine.checked_read import Unreadable, foreign_owner, read_checked


def refusal(path, **kw) -> Unreadable:
    with pytest.raises(Unreadable) as caught:
        read_checked(path, 100, **kw)
    return caught.value


def test_a_regular_file_is_read_with_the_stat_of_the_descriptor_read(tmp_path):
    path = tmp_path / "a.toml"
    path.write_bytes(b"x = 1\n")
    data, info = read_checked(path, 100)
    assert data == b"x = 1\n" and stat.S_ISREG(info.st_mode) and info.st_ino == path.stat().st_ino


def test_what_is_not_a_regular_file_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a blocking open or read would wait for a writer forever
    got = refusal(fifo)
    assert (got.kind, got.what) == ("special", "a FIFO")
    assert (refusal(tmp_path).kind, refusal(tmp_path).what) == ("directory", "a directory")
    assert refusal(tmp_path / "none").kind == "missing"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "sock"))  # cannot be opened at all (ENXIO): still named for what it is
        assert (refusal(tmp_path / "sock").kind, refusal(tmp_path / "sock").what) == ("special", "a socket")
    finally:
        sock.close()
    assert refusal("/dev/zero").what == "a character device"


def test_a_link_is_followed_only_when_asked(tmp_path):
    (tmp_path / "real").write_bytes(b"ok")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_checked(tmp_path / "link", 10)[0] == b"ok"
    assert refusal(tmp_path / "link", follow_links=False).kind == "link"
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    os.mkfifo(tmp_path / "fifo")
    assert refusal(tmp_path / "to-fifo").what == "a FIFO"  # followed, and seen for what it leads to


def test_size_is_capped_and_the_callers_check_sees_the_descriptor_before_any_read(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    got = refusal(big)
    assert (got.kind, got.size) == ("large", 101)
    seen = []

    def check(info: os.stat_result) -> None:
        seen.append(info.st_ino)
        raise Unreadable("refused", "not yours")

    small = tmp_path / "small"
    small.write_bytes(b"x")
    got = refusal(small, check=check)
    assert (got.kind, got.reason, seen) == ("refused", "not yours", [small.stat().st_ino])


def test_foreign_owner_names_another_users_file_and_as_root_one_others_can_write():
    me = os.geteuid()

    def st(uid: int, mode: int) -> os.stat_result:
        return os.stat_result((stat.S_IFREG | mode, 1, 1, 1, uid, 0, 0, 0, 0, 0))

    assert foreign_owner(st(me, 0o644)) is None and foreign_owner(st(0, 0o600)) is None
    other = 4242 if me != 4242 else 4243
    assert foreign_owner(st(other, 0o644)).startswith("it belongs to ")
    assert (foreign_owner(st(me, 0o666)) == "others can write it (mode 0666)") == (me == 0)
