"""fio's JSON reports as the fio engine and the importer read them (labtui.engine.fio.parse): json+ histograms
turned into the percentiles fio prints. Finding the reports: test_fio_output.py; differencing them: test_fio_intervals.py."""

from __future__ import annotations

from conftest import FIXTURES
from labtui.engine.fio import output, parse as fr

STREAM = (FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json").read_text()


def test_histogram_percentiles_are_the_ones_fio_prints():
    job = output.split_output(STREAM).reports[-1]["jobs"][0]
    for direction in ("read", "write"):
        lat = job[direction]["lat_ns"]
        bins = {int(k): v for k, v in lat["bins"].items()}
        points = [float(p) for p in lat["percentile"]]
        assert fr.bins_percentiles(bins, points) == list(lat["percentile"].values())
