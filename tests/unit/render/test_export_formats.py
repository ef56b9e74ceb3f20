"""The export formats by name (labtui.render.export_formats): each has a writer, a label and a file ending."""

from __future__ import annotations

from labtui.render import export
from labtui.render.export_formats import FORMATS


def test_every_format_offered_has_a_writer_and_a_file_ending_of_its_kind():
    assert list(FORMATS) == ["csv", "markdown", "json", "configmgr-csv"]  # in the order they are offered
    assert export.WRITERS.keys() == FORMATS.keys()
    assert {name: f.suffix for name, f in FORMATS.items()} == {
        "csv": ".csv", "markdown": ".md", "json": ".json", "configmgr-csv": ".csv"}
    assert all(f.label.strip() and f.suffix.startswith(".") for f in FORMATS.values())


def test_the_names_load_without_the_writers():
    import subprocess
    import sys

    code = ("import sys; import labtui.render.export_formats; "
            "print('labtui.render.export' in sys.modules, 'labtui.analysis.comparison' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]
