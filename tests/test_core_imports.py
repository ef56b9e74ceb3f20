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
