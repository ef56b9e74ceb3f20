"""Fitting the TUI's tables to the terminal: widths that shrink to a minimum, or cells folded whole."""

from __future__ import annotations

from labtui.render.widths import fold_widths
from labtui.render.words import fold
from labtui.tui.columns import fit_widths, share_widths

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


def test_fit_widths_narrows_long_columns_down_to_their_minimum():
    columns = [("device", "Device"), ("mount", "Mount point"), ("free", "Free")]
    cells = [{"device": "nvme0n1p2", "mount": "/a/very/long/mount/point/somewhere", "free": "12 GiB"}]
    widths = fit_widths(columns, cells, 40, {"mount": 10, "device": 8})
    assert sum(widths.values()) + 2 * len(columns) <= 40
    assert widths["free"] == 6 and widths["mount"] >= 10


HISTORY = [("date", "Date"), ("disk", "Disk"), ("profile", "Profile"), ("tags", "Tags"), ("iops", "IOPS")]
RUNS = [{"date": "12-02 15:38", "disk": "virtio disk", "profile": "quick-sanity", "tags": "first", "iops": "12k/6.8k"},
        {"date": "12-02 15:30", "disk": "virtio disk", "profile": "quick-sanity", "tags": "", "iops": "8.1k/2.5k"},
        {"date": "2017-09-28", "disk": "unknown", "profile": "fio-2.17-legacy-randread-randwrite16k-nj2-libaio",
         "tags": "", "iops": "126/38"}]
LEAST = {"disk": 8, "profile": 8, "tags": 4, "iops": 7}


def test_share_widths_makes_the_most_cells_whole_and_a_long_name_gives_way():
    # The History rows of 80 columns: what fits whole is whole ("virtio disk" was "virtio d…", and a
    # figure "8.1k/2.…", beside a profile column wide for a name that is cut anyway).
    widths = share_widths(HISTORY, RUNS, 11 + 11 + 12 + 5 + 9 + 5 * 1, LEAST, {}, padding=1)
    assert widths == {"date": 11, "disk": 11, "profile": 12, "tags": 5, "iops": 9}


def test_share_widths_gives_room_by_weight_and_order_and_the_rest_to_what_is_still_cut():
    room = 11 + 8 + 8 + 4 + 7 + 5 + 3  # three cells above the least widths
    # By cells alone the tag (one cell for one) wins, then the figure; a disk that counts three times
    # takes the three cells for its two whole names.
    assert share_widths(HISTORY, RUNS, room, LEAST, {}, padding=1)["tags"] == 5
    weighted = share_widths(HISTORY, RUNS, room, LEAST, {}, padding=1, weight={"disk": 3.0})
    assert weighted["disk"] == 11 and weighted["tags"] == 4
    # Past every whole cell, the room left goes a cell at a time to the columns still cut.
    wide = share_widths(HISTORY, RUNS, 11 + 11 + 12 + 5 + 9 + 5 + 4, LEAST, {}, padding=1)
    assert wide["profile"] == 16 and sum(wide.values()) + 5 == 11 + 11 + 12 + 5 + 9 + 5 + 4


def test_share_widths_below_the_least_widths_cuts_by_the_shrink_groups():
    widths = share_widths(HISTORY, RUNS, 40, LEAST, {"profile": 4, "disk": 5, "iops": 5}, padding=1)
    assert sum(widths.values()) + 5 <= 40 and widths["date"] == 11


def test_fold_breaks_between_words_and_a_path_after_its_hyphens_and_slashes():
    assert fold("Samsung SSD 990 PRO 2TB", 12) == ["Samsung SSD", "990 PRO 2TB"]
    assert fold("low space, slow link", 12) == ["low space,", "slow link"]
    assert fold("/mnt/lab-nvme-adapter-b/data", 16) == ["/mnt/lab-nvme-", "adapter-b/data"]
    assert fold("/", 5) == ["/"] and fold("", 5) == [""]


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
