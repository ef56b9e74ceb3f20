"""The layers hold, statically: pyproject's import contracts (import-linter), over every import in labtui.

A module imports only from layers below its own (entry point, TUI | CLI, screens, widgets, TUI helpers,
render, analysis, results, engine, vocabulary); the core imports no Textual, Rich or plotext; the
headless CLI nothing of the TUI; and no two modules import each other, even through others.
"""

from pathlib import Path

from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold(capsys):
    code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True)
    assert code == 0, capsys.readouterr().out[-4000:]


def _imports_of_every_module() -> dict[str, set[str]]:
    """Each module of labtui and the labtui modules it imports: at its top, inside functions, under
    TYPE_CHECKING, every one (loading a module runs its packages' __init__ too)."""
    import ast

    root = REPO / "labtui"
    modules: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path

    def module_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.update(filter(None, (module_of(alias.name) for alias in node.names)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
                for alias in node.names:  # `from package import module` imports the module
                    found.update(filter(None, [module_of(f"{base}.{alias.name}") if f"{base}.{alias.name}" in modules
                                               else module_of(base)]))
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = (found | parents) - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, through others or directly (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle_counting_imports_in_functions_and_for_type_checking():
    # The contracts above leave out imports under TYPE_CHECKING (import-linter cannot count them and
    # keep the layers), and an import inside a function hides a cycle from a reader as well as from
    # Python: a circle "broken" that way is still a circle. This counts every import.
    graph = _imports_of_every_module()
    assert "labtui.commands.fleet" in graph["labtui.commands.run"]  # imported inside a function: counted
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_others():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _argparse_uses(source: str) -> list[str]:
    """Where `source` imports argparse (at its top, inside a function, anywhere) or a function of it takes or
    gives a Namespace: "import argparse", "def name(args: Namespace)"."""
    import ast
    import re

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "argparse" for a in node.names):
            found.append("import argparse")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse":
            found.append("from argparse import ...")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            annotations = [a.annotation for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                                  arguments.vararg, arguments.kwarg) if a is not None]
            if any(re.search(r"(?<![A-Za-z])Namespace\b", ast.unparse(a)) for a in [*annotations, node.returns] if a):
                found.append(f"def {node.name}(... Namespace ...)")
    return found


def test_only_the_command_line_sees_argparse_the_rest_takes_typed_requests():
    """The command line is parsed once, in labtui/commands/, into typed requests (labtui.run.request): no
    module outside the entry point and commands/ imports argparse or has a function taking a Namespace; and
    the run and check commands read theirs in `run` and `parse` only (the agent, the fleet, the sweep: none)."""
    outside, inside = [], []
    for path in sorted((REPO / "labtui").rglob("*.py")):
        name = str(path.relative_to(REPO))
        uses = _argparse_uses(path.read_text(encoding="utf-8"))
        if name == "labtui/cli.py":
            continue
        if not name.startswith("labtui/commands/"):
            outside += [f"{name}: {use}" for use in uses]
        elif path.stem in ("run", "check", "fleet", "agent", "sweep", "progress", "stops"):
            inside += [f"{name}: {use}" for use in uses if use.startswith("def ")
                       and not use.startswith(("def run(", "def parse("))]
    assert outside == [] and inside == []
    # What it looks for, found where it hides: inside a function, as a return, under another name.
    assert _argparse_uses("def f():\n    import argparse.x\n") == ["import argparse"]
    assert _argparse_uses("def g(a, *, b: 'argparse.Namespace') -> None: ...\n") == ["def g(... Namespace ...)"]
    assert _argparse_uses("async def h() -> Namespace: ...\nfrom argparse import Namespace as N\n") == [
        "def h(... Namespace ...)", "from argparse import ..."]
    assert _argparse_uses("def k(x: SimpleNamespace): ...\n") == []
