"""What the answer names as a cause of a difference (labtui/analysis/causes.py): a setup that differs, never the
compared drive itself."""

from __future__ import annotations

from dataclasses import replace

from labtui.analysis.answer import comparison_answers
from labtui.analysis.comparison import compare
from synthetic import TARGET, pair


def answer(a, b, **kw):
    return comparison_answers(compare([a, b], **kw))[0]


def test_another_drive_on_another_link_is_what_is_compared_not_a_cause():
    sata = replace(TARGET, model="Samsung SSD 870 EVO", transport="sata", pcie_speed=None, pcie_width=None,
                   sata_speed="6.0 Gbps", firmware="SVT02B6Q")
    a, b = pair(39_000, target=sata)
    assert answer(a, b).causes == ()
