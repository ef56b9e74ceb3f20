"""Reading sysfs and /proc (labtui.machine.sysfs): what cannot be read is None, never an exception, and text
is stripped and made printable as it is read."""

from __future__ import annotations

from labtui.machine.sysfs import iterdir, read, read_bool, read_bytes, read_int


def test_a_file_is_read_stripped_and_what_cannot_be_read_is_none(tmp_path):
    (tmp_path / "model").write_text("Samsung SSD 870 \n")
    assert read(tmp_path / "model") == "Samsung SSD 870"
    assert read(tmp_path / "missing") is None and read(tmp_path) is None  # a directory cannot be read either
    (tmp_path / "empty").write_text("\n")
    assert read(tmp_path / "empty") is None


def test_a_devices_own_words_reach_no_terminal_as_codes(tmp_path):
    """A USB stick names itself: an escape code or a carriage return in its model is shown, not obeyed."""
    (tmp_path / "model").write_bytes(b"Stick\x1b[2J\rX\nsecond line\xff")
    one = read(tmp_path / "model")
    assert one is not None and "\x1b" not in one and "\r" not in one and "\n" not in one
    assert one.startswith("Stick") and "second line" in one
    lines = read(tmp_path / "model", lines=True)
    assert lines is not None and "\n" in lines and "\x1b" not in lines


def test_numbers_and_flags_are_none_where_the_file_says_something_else(tmp_path):
    (tmp_path / "size").write_text("1953525168\n")
    (tmp_path / "speed").write_text("<unknown>\n")
    (tmp_path / "rotational").write_text("0\n")
    assert read_int(tmp_path / "size") == 1953525168 and read_int(tmp_path / "speed") is None
    assert read_bool(tmp_path / "rotational") is False and read_bool(tmp_path / "missing") is None


def test_bytes_and_folders_that_cannot_be_read_are_none_and_empty(tmp_path):
    (tmp_path / "vpd_pg80").write_bytes(b"\x00\x80\x00\x02AB")
    assert read_bytes(tmp_path / "vpd_pg80") == b"\x00\x80\x00\x02AB" and read_bytes(tmp_path / "missing") is None
    assert iterdir(tmp_path / "missing") == [] and iterdir(tmp_path / "vpd_pg80") == []
    assert sorted(p.name for p in iterdir(tmp_path)) == ["vpd_pg80"]
