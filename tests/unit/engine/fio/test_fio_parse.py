"""fio's JSON reports as the fio engine and the importer read them (labtui.engine.fio.parse): json+ histograms
turned into the percentiles fio prints, its `steadystate` object read or refused. Finding the reports:
test_fio_output.py; differencing them: test_fio_intervals.py."""

from __future__ import annotations

import pytest

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


def test_fios_steadystate_object_is_read_with_falling_figures_and_refused_when_garbled():
    from labtui.engine.fio import parse as fr
    from labtui.errors import ReportError

    # The shape fio 3.33 prints (its own run of iops_slope:50% over 3 s, figures falling this time).
    job = {"steadystate": {"ss": "iops_slope:50.000000%", "duration": 3, "attained": 1, "criterion": "-25.797390%",
                           "max_deviation": 0.0, "slope": -2984.5,
                           "data": {"bw_mean": 47390167, "iops_mean": 11569, "iops": [14114, 12450, 8145],
                                    "bw": [57810944, 50997045, 33362514]}}}
    state = fr.job_steadystate(job)
    assert (state.criterion_name, state.attained, state.criterion, state.percent) == ("iops_slope", True, -25.79739, True)
    assert state.slope == -2984.5 and state.iops == (14114, 12450, 8145) and state.bw_mean == 47390167
    assert fr.job_steadystate({}) is None
    for bad in ({"ss": "iops"}, {"ss": "iops:1%", "criterion": "x%", "duration": 3, "data": {}},
                {"ss": "iops:1%", "criterion": "1%", "duration": 3, "slope": "steep", "data": {}}):
        with pytest.raises(ReportError):
            fr.job_steadystate({"steadystate": bad})
