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

from conftest import REPO

TESTS = REPO / "tests"
KINDS = {"unit", "tui", "system", "docs", "static", "hostile"}

# labtui's packages whose tests are not under tests/unit/<package>/, and where they are instead.
ELSEWHERE = {
    "screens": "tests/tui/",  # Textual screens: Pilot tests and snapshots
    "widgets": "tests/tui/",  # Textual widgets, driven inside a screen
    "tui": "tests/tui/",  # the TUI's own helpers (run state, columns, theming), next to the screens they serve
}
# Folders of tests/unit/ that mirror something other than a package: labtui's top-level modules, and
# labtui/profiles/ (the built-in profile files, data without an __init__.py).
UNIT_EXTRA = {"toplevel", "profiles"}

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
