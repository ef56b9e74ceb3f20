"""Fitting the TUI's tables to the terminal (labtui.tui.columns): widths that shrink to a minimum. Cells folded whole:
tests/unit/render/test_widths.py."""

from __future__ import annotations

from labtui.tui.columns import fit_widths, share_widths


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
