"""The tests mirror the code: a newcomer finds a module's tests by its package, and a new test has one place.

    tests/unit/<package>/   labtui's packages (tests/unit/engine/native/ for labtui/engine/native/ ...),
                            tests/unit/toplevel/ for labtui's top-level modules (settings.py, units.py ...)
    tests/tui/              the screens, widgets and app in Textual's Pilot; tests/tui/snapshots/ the SVGs,
                            a module per screen
    tests/system/           real loop devices, real users, sshd, signals to real processes, tmux end to end
    tests/docs/             the README, the manual, its pictures and site
    tests/static/           ruff, mypy, the import contracts, packaging, this file
    tests/hostile/          hostile input fed through every layer (its corpus and scripted far end beside it)
    tests/support/          shared helpers, imported by name (pyproject's pythonpath): no tests
    tests/fixtures/         every data file a test reads, with SOURCES.md
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

TESTS = REPO / "tests"
KINDS = {"unit", "tui", "system", "docs", "static", "hostile"}

# labtui's packages whose tests are not under tests/unit/<package>/, and where they are instead.
ELSEWHERE = {
    "screens": "tests/tui/",  # Textual screens: Pilot tests and snapshots
    "widgets": "tests/tui/",  # Textual widgets, driven inside a screen
    "tui": "tests/tui/",  # the TUI's own helpers (run state, columns, theming), next to the screens they serve
}
# labtui's top-level modules whose tests are not under tests/unit/toplevel/: the Textual app, in Pilot.
TOPLEVEL_ELSEWHERE = {"app": "tests/tui/"}
# Folders of tests/unit/ that mirror something other than a package: labtui's top-level modules, and
# labtui/profiles/ (the built-in profile files, data without an __init__.py).
UNIT_EXTRA = {"toplevel", "profiles"}

# Where a module's tests go, by name: labtui/<package>/<module>.py has tests/unit/<package>/test_<module>.py
# (test_<package>_<module>.py or test_<module>_<package>.py where another folder has a test_<module>.py:
# tests/unit/engine/fio/test_fio_engine.py); a top-level module tests/unit/toplevel/test_<module>.py; a
# screen, widget or TUI helper tests/tui/test_<module>_screen.py, test_<module>_widget.py, test_<module>.py; the
# app tests/tui/test_app.py.
# Modules whose tests are not yet in a module named for them (issue 40). The list only shrinks: a module
# given its test module leaves it (a test says so), and a new module is never added to it.
NOT_YET = set("""
""".split())

WHERE = ("a new test goes in tests/unit/<package>/ for labtui/<package>/ (tests/unit/toplevel/ for a top-level "
         "module), tests/tui/ for a screen or widget, tests/system/ for loop devices, users, sshd, signals or tmux, "
         "tests/docs/ for the README and the manual (see tests/static/test_test_tree.py)")


def modules() -> list:
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def packages() -> list[str]:
    """labtui's sub-packages, as paths under labtui/: "engine", "engine/native" ..."""
    root = REPO / "labtui"
    return sorted(p.parent.relative_to(root).as_posix() for p in root.rglob("__init__.py")
                  if p.parent != root and "__pycache__" not in p.parts)


def test_no_test_module_lies_at_the_root_of_tests():
    loose = [p.name for p in TESTS.glob("test_*.py")]
    assert not loose, f"test modules at tests/'s root: {loose}; {WHERE}"


def test_every_test_module_is_in_a_kind_of_tests_folder():
    stray = [p.relative_to(TESTS).as_posix() for p in modules() if p.relative_to(TESTS).parts[0] not in KINDS]
    assert not stray, f"test modules outside {sorted(KINDS)}: {stray}; {WHERE}"


def test_every_package_has_its_mirrored_unit_tests_or_says_where_they_are():
    missing = [pkg for pkg in packages()
               if pkg.split("/")[0] not in ELSEWHERE and not list((TESTS / "unit" / pkg).glob("test_*.py"))]
    assert not missing, (f"labtui packages without tests in tests/unit/<package>/: {missing}; put their tests there, "
                         "or name the package in ELSEWHERE in tests/static/test_test_tree.py with where they are")


def test_every_unit_folder_mirrors_a_package():
    known = set(packages()) | UNIT_EXTRA
    folders = sorted({p.parent.relative_to(TESTS / "unit").as_posix() for p in modules()
                      if p.relative_to(TESTS).parts[0] == "unit"})
    stray = [f for f in folders if f not in known]
    assert not stray, f"tests/unit/ folders that mirror no labtui package: {stray}; {WHERE}"
    assert not [f for f in folders if f.split("/")[0] in ELSEWHERE], f"tests of {sorted(ELSEWHERE)} go in tests/tui/"


def test_test_module_names_are_unique():
    # The test folders are not packages (pytest's default import mode): two modules of one name
    # in two folders cannot both be imported, and a cross-folder `from test_x import` would be ambiguous.
    seen: dict[str, str] = {}
    twins = []
    for path in modules():
        where = path.relative_to(TESTS).as_posix()
        if path.name in seen:
            twins.append((seen[path.name], where))
        seen[path.name] = where
    assert not twins, f"test modules with the same name: {twins}; give the new one a name of its own"


def test_helpers_live_in_support_and_tests_import_no_test_module():
    helpers = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*.py")
               if not p.name.startswith("test_") and p.name != "conftest.py" and "__pycache__" not in p.parts
               and p.relative_to(TESTS).parts[0] not in {"support", "hostile"}]
    assert not helpers, f"helper modules outside tests/support/: {helpers}; shared helpers go in tests/support/"
    importing = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*.py")
                 if "__pycache__" not in p.parts and any(line.strip().startswith(("from test_", "import test_"))
                                                        for line in p.read_text(encoding="utf-8").splitlines())]
    assert not importing, (f"modules importing from a test module: {importing}; move what they share into "
                           "tests/support/ (tui_support, factories, synthetic, loopdev ...)")


def test_one_fixtures_folder():
    data = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*")
            if p.is_dir() and p.name in {"data", "fixtures"} and p != TESTS / "fixtures"]
    assert not data, f"data folders besides tests/fixtures/: {data}; put the files in tests/fixtures/ with a SOURCES.md line"


def module_test_places(module: Path) -> list[Path]:
    """Where `module` (a path under labtui/) may have its tests: see NOT_YET's comment."""
    parts = module.relative_to(REPO / "labtui").with_suffix("").parts
    name = parts[-1].strip("_")  # import_.py: test_import.py; __main__.py: test_main.py
    if len(parts) == 1:
        return [REPO / TOPLEVEL_ELSEWHERE.get(name, "tests/unit/toplevel/") / f"test_{name}.py"]
    folder = TESTS / "tui" if parts[0] in ELSEWHERE else TESTS / "unit" / Path(*parts[:-1])
    package = parts[-2]
    return [folder / f"test_{name}.py", folder / f"test_{package}_{name}.py",
            folder / f"test_{name}_{package.removesuffix('s')}.py"]


def labtui_modules() -> list[Path]:
    return sorted(p for p in (REPO / "labtui").rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts)


def test_every_module_has_a_test_module_named_for_it():
    missing = [m.relative_to(REPO).as_posix() for m in labtui_modules()
               if m.relative_to(REPO).as_posix() not in NOT_YET and not any(p.exists() for p in module_test_places(m))]
    assert not missing, ("modules without a test module named for them: "
                         + "; ".join(f"{m} (tests in {module_test_places(REPO / m)[0].relative_to(REPO)})" for m in missing))


def test_not_yet_names_only_modules_still_waiting_for_their_tests():
    stale = sorted(m for m in NOT_YET if not (REPO / m).exists() or any(p.exists() for p in module_test_places(REPO / m)))
    assert not stale, f"NOT_YET in tests/static/test_test_tree.py names modules gone or with tests now: {stale}; remove them"
