"""The layers hold, statically: pyproject's import contracts (import-linter), over every import in labtui.

A module imports only from layers below its own (entry point, TUI | CLI, screens, widgets, TUI helpers,
render, analysis, results, engine, vocabulary); the core imports no Textual, Rich or plotext; the
headless CLI nothing of the TUI; and no two modules import each other, even through others.
"""

from pathlib import Path

from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold(capsys):
    code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True)
    assert code == 0, capsys.readouterr().out[-4000:]
