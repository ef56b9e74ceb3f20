"""The measuring and keeping layers know nothing of the UI: importing them loads no Textual and no Rich.

This is the runtime check (it sees the importlib registries, e.g. the engines by name, which a static
import graph cannot); tests/static/test_architecture.py checks the layers statically.
"""

import subprocess
import sys

UI = ("textual", "rich", "plotext")
UI_MODULES = ("labtui.app", "labtui.screens", "labtui.widgets", "labtui.tui", "labtui.commands", "labtui.render")


def imported_by(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nprint(','.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().split(",")


def test_engine_results_analysis_and_the_vocabulary_import_no_ui():
    loaded = imported_by(
        "import sys, pkgutil, importlib, labtui\n"
        "for package in ('labtui.engine', 'labtui.machine', 'labtui.run', 'labtui.results', 'labtui.analysis', 'labtui.fleet'):\n"
        "    p = importlib.import_module(package)\n"
        "    for m in pkgutil.walk_packages(p.__path__, package + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "for m in ('model', 'settings', 'errors', 'units', 'params', 'series', 'printable', 'store', 'locations'):\n"
        "    importlib.import_module('labtui.' + m)\n"
        "from labtui.engine.registry import ENGINES, get_engine\n"
        "for name in ENGINES:\n"
        "    get_engine(name)\n"
    )
    bad = [m for m in loaded if m.split(".")[0] in UI or m.startswith(UI_MODULES)]
    assert bad == [], f"core modules import UI modules: {bad}"


def test_markdown_and_export_need_no_rich():
    # Reports written into files and pipes: the CLI and the TUI's Compare screen share them.
    loaded = imported_by("import sys, labtui.render.export, labtui.render.markdown")
    bad = [m for m in loaded if m.split(".")[0] in UI or m.startswith(UI_MODULES[:-1])]
    assert bad == [], f"export and markdown import presentation modules: {bad}"


def test_a_native_worker_process_imports_its_loops_and_nothing_else_of_labtui():
    # Every worker is a fresh interpreter started for its step (4 workers per step are common):
    # the engine registry, the model and psutil cost each ~0.13 CPU-seconds more to start.
    loaded = imported_by("import sys, labtui.engine.native.worker")
    ours = {m for m in loaded if m.startswith("labtui")}
    assert ours <= {"labtui", "labtui.engine", "labtui.engine.native", "labtui.engine.native.worker",
                    "labtui.engine.native.common", "labtui.engine.native.histogram", "labtui.engine.schedstat"}, ours
    assert "psutil" not in loaded


def test_the_command_lines_parser_lists_the_engines_without_loading_one():
    # Every `labtui` command builds every sub-command's parser, `run -e`'s help among them: the
    # registry's names must come without the engines' base, the machine's readers and psutil
    # (~0.3 CPU-seconds more for `labtui --version`).
    loaded = imported_by("import sys\nfrom labtui.cli import build_parser\nbuild_parser()")
    assert "labtui.engine.registry" in loaded
    heavy = [m for m in loaded if m in ("labtui.engine.base", "labtui.machine.devices", "psutil")]
    assert heavy == [], heavy


def test_judging_results_loads_no_engine_and_no_psutil():
    # compare, show, check's verdicts and the screens that draw them read CPU-bound words
    # (labtui.engine.cpubound), never the machine: psutil and the engines are the runs'.
    loaded = imported_by("import sys, labtui.analysis.comparison, labtui.analysis.bottleneck, labtui.render.comparison")
    heavy = [m for m in loaded if m in ("labtui.engine.base", "labtui.machine.devices", "psutil")]
    assert heavy == [], heavy
