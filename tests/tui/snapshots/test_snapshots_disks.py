"""The Disks screen (the first screen) at 80x24 and 120x40."""

from __future__ import annotations

import pytest

from tui_support import disks_ready, each_size, make_app

pytestmark = pytest.mark.usefixtures("io_uring_pinned")


@each_size
def test_disks(snap_compare, labtui_home, size):
    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=disks_ready)
