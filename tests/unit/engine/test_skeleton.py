"""The skeleton engine (labtui/engine/skeleton.py), the template of a new engine: registered nowhere, and
registering it (one line in registry.ENGINES, done here by the test) is all it takes to be listed by
`labtui run --help` and previewed on the Workload screen. tests/unit/engine/test_base.py runs it with the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labtui import cli
from labtui.engine import registry
from tui_support import make_app, open_workload, set_text

SKELETON = "skeleton"  # the template engine, registered by the test as a new engine would be


@pytest.fixture
def skeleton(monkeypatch) -> str:
    monkeypatch.setitem(registry.ENGINES, SKELETON, "labtui.engine.skeleton:SkeletonEngine")
    return SKELETON


def test_a_registered_engine_is_listed_by_run_help(skeleton, capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "native (default), fio, diskspd or skeleton" in help_text


async def test_a_registered_engine_is_previewed_on_the_workload_screen(skeleton, labtui_home):
    from textual.widgets import Static

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)

        def line() -> str:
            return str(app.screen.query_one(f"#command-{SKELETON} .command-text", Static).render())

        # quick-sanity's first step has 4 threads x 8 outstanding: more than the skeleton can run, and it says so.
        assert "cannot express this step: the skeleton engine runs one thread" in line()
        await set_text(pilot, "#s-threads", "1")
        await set_text(pilot, "#s-outstanding", "1")
        assert line().startswith("skeleton: random 64KiB I/Os, 0 % writes, one at a time O_DIRECT, over ")
        rows = [str(label.render()) for label in app.screen.query(".command-engine")]
        assert rows[-1] == "skeleton", "after the engines of the registry, by its preview_order"


def test_the_skeleton_is_registered_nowhere_but_in_tests():
    assert SKELETON not in registry.ENGINES
    assert Path(registry.__file__).with_name("skeleton.py").is_file()
