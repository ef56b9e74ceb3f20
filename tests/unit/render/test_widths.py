"""Column widths that fold text rather than cut it (labtui.render.widths): the TUI's tables of plain text at any
width, every cell whole, the room left where it saves the most lines."""

from __future__ import annotations

from labtui.render.widths import fold_widths, share_room
from labtui.render.words import fold

DISK_COLUMNS = [("device", "Device"), ("model", "Model"), ("free", "Free"), ("fs", "FS"), ("mount", "Mount point")]
ADAPTERS = [
    {"device": "nvme1n1p1", "model": "Samsung SSD 990 PRO 2TB", "free": "1.7 TiB", "fs": "xfs",
     "mount": "/mnt/lab-nvme-adapter-a/data"},
    {"device": "nvme2n1p1", "model": "Samsung SSD 990 PRO 2TB", "free": "1.7 TiB", "fs": "xfs",
     "mount": "/mnt/lab-nvme-adapter-b/data"},
    {"device": "sda1", "model": "CT500MX500SSD1", "free": "12.0 GiB", "fs": "ext4", "mount": "/"},
]


def _padded(widths: dict[str, int]) -> int:
    return sum(w + 2 for w in widths.values())


def test_with_room_every_cell_is_on_one_line():
    widths = fold_widths(DISK_COLUMNS, ADAPTERS, 120, folding=("mount", "model"))
    assert widths == {"device": 9, "model": 23, "free": 8, "fs": 4, "mount": 28}


def test_narrow_nothing_is_cut_and_two_volumes_on_two_adapters_stay_apart():
    """At 80 columns the two adapters' mount points fold whole (never '/mnt/lab-nvme-ad…' twice)."""
    widths = fold_widths(DISK_COLUMNS, ADAPTERS, 60, folding=("mount", "model"))
    assert _padded(widths) <= 60
    assert widths["device"] == 9 and widths["free"] == 8 and widths["fs"] == 4  # never folded
    for row in ADAPTERS:
        for key in ("mount", "model"):
            lines = fold(row[key], widths[key])
            assert len(lines) <= 2 and all(len(line) <= widths[key] for line in lines)
            assert (" " if key == "model" else "").join(lines) == row[key]
    assert fold(ADAPTERS[0]["mount"], widths["mount"]) != fold(ADAPTERS[1]["mount"], widths["mount"])


def test_the_room_left_goes_where_it_saves_the_most_lines():
    # Two cells more take CT500MX500SSD1 whole (a line saved); then whole models or whole mount
    # points would save none (the other still folds on the adapters' rows): the mount point,
    # which tells the rows apart, is the one said on one line.
    widths = fold_widths(DISK_COLUMNS, ADAPTERS, 75, folding=("mount", "model"))
    assert widths["model"] == len("CT500MX500SSD1") and widths["mount"] == 28
    # With room for the models too, nothing folds.
    assert fold_widths(DISK_COLUMNS, ADAPTERS, 82, folding=("mount", "model"))["model"] == 23


def test_too_narrow_the_optional_columns_go_first_then_rows_grow_taller():
    widths = fold_widths(DISK_COLUMNS, ADAPTERS, 52, folding=("mount", "model"), optional=("fs",))
    assert "fs" not in widths and _padded(widths) <= 52
    assert all(len(fold(row["mount"], widths["mount"])) <= 2 for row in ADAPTERS)
    # Narrower still, a cell takes three lines rather than being cut.
    widths = fold_widths(DISK_COLUMNS, ADAPTERS, 50, folding=("mount", "model"), optional=("fs",))
    assert "fs" not in widths and _padded(widths) <= 50
    assert max(len(fold(row["mount"], widths["mount"])) for row in ADAPTERS) == 3
    assert all("".join(fold(row["mount"], widths["mount"])) == row["mount"] for row in ADAPTERS)


def test_a_label_stays_whole():
    widths = fold_widths([("mount", "Mount point")], [{"mount": "/"}], 6, folding=("mount",))
    assert widths["mount"] == len("Mount point")


def test_room_goes_to_the_column_that_saves_the_most_lines_per_cell():
    # Two columns of two rows; column 0 saves both rows' second line at width 6, column 1 only one row's at 5.
    def lines(column: int, width: int) -> list[float]:
        if column == 0:
            return [1, 1] if width >= 6 else [2, 2]
        return [1, 2] if width >= 5 else [2, 2]

    assert share_room([4, 4], [6, 5], 2, lines, [1, 1]) == [6, 4]
    # With one cell of room neither saves a line alone: the first is widened toward it, or the room is left over.
    assert share_room([4, 4], [6, 5], 1, lines, [1, 1]) == [4, 5]
    assert share_room([4, 4], [6, 5], 1, lines, [1, 1], widen_alone=False) == [4, 4]
