"""The engine, model and store know nothing of the UI: importing them loads no Textual."""

import subprocess
import sys


def test_core_imports_no_textual():
    code = (
        "import sys, pkgutil, importlib, labtui.engine, labtui.model, labtui.store\n"
        "for m in pkgutil.walk_packages(labtui.engine.__path__, 'labtui.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith(('textual.', 'labtui.screens', 'labtui.widgets', 'labtui.app')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core modules import UI modules: {out.stdout}"


def test_comparison_core_imports_neither_textual_nor_rich():
    # The CLI and the TUI's Compare screen share these; they must stay free of any presentation layer.
    code = (
        "import sys, labtui.compare, labtui.stats, labtui.baselines, labtui.export, labtui.markdown, labtui.summaries, "
        "labtui.live\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich') or m.startswith('labtui.screens'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"comparison modules import presentation modules: {out.stdout}"
