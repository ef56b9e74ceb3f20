"""The disk-counter sampler that gives DiskSpd runs (and command steps) their live view."""

from __future__ import annotations

import os
import time

import pytest

from labtui.engine.cpubound import MIN_SECONDS
from labtui.engine.diskstats import DiskSampler
from labtui.machine import devices


def test_writes_to_the_disk_show_up(tmp_path):
    disk = devices.target_info(tmp_path).disk
    sampler = DiskSampler(disk)
    if not sampler.available:
        pytest.skip(f"no kernel counters for the disk under {tmp_path} ({disk})")
    with open(tmp_path / "data", "wb") as handle:
        handle.write(os.urandom(8 * 1024 * 1024))
        handle.flush()
        os.fsync(handle.fileno())
    # The machine's CPU use is a figure only over enough clock ticks (shorter samples leave it None).
    time.sleep(max(0.0, 2 * MIN_SECONDS - (time.monotonic() - sampler.read_at)))
    sample = sampler.take(1.0)
    assert sample is not None and sample.t == 1.0 and sample.seconds > 0
    assert sample.write_bytes >= 8 * 1024 * 1024 and sample.write_ios > 0
    assert sample.write_lat_mean_ms is not None and sample.cpu_percent is not None


def test_no_disk_no_samples():
    sampler = DiskSampler(None)
    assert not sampler.available and sampler.take(1.0) is None


def test_the_machine_cpu_use_of_a_sample_too_short_to_tell_is_not_given(tmp_path):
    sampler = DiskSampler(devices.target_info(tmp_path).disk)
    if not sampler.available:
        pytest.skip("no kernel counters for the disk here")
    sample = sampler.take(0.001)  # read at once: a tick or two of the machine's CPU time, if any
    assert sample is None or (sample.seconds < MIN_SECONDS and sample.cpu_percent is None)
    assert DiskSampler("no-such-disk-xyz").take(1.0) is None
