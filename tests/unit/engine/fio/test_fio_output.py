"""fio's stdout (labtui.engine.fio.output): the JSON reports in it, whole or split as they arrive, and the text around them."""

from __future__ import annotations

import random

from conftest import FIXTURES
from labtui.engine.fio import output

STREAM = (FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json").read_text()
SIGINT = (FIXTURES / "fio-json/fio-3.33-rw4k-qd16-sigint-prefix.json").read_text()


def test_stream_arriving_in_pieces_gives_the_same_reports():
    whole = output.split_output(STREAM).reports
    assert len(whole) == 5
    rng = random.Random(7)
    stream = output.ReportStream()
    pieces: list[dict] = []
    pos = 0
    while pos < len(STREAM):
        size = rng.randint(1, 9000)
        pieces += stream.feed(STREAM[pos : pos + size])
        pos += size
    pieces += stream.finish()
    assert pieces == list(whole)


def test_text_around_the_json_is_kept_as_messages():
    out = output.split_output(SIGINT)
    assert len(out.reports) == 1 and out.messages == ("fio: terminating on signal 2",)
