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
