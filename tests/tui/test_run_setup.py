"""The next run on the Run screen (widgets/run_setup.py): the target, the engines that can run here, the tags and
the profile it takes from the screens around it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.history import HistoryScreen
from labtui.screens.result import ResultScreen
from labtui.screens.run import RunScreen
from labtui.screens.workload import WorkloadScreen
from labtui.settings import Settings
from tui_support import (
    again_from_history,
    disks_ready,
    make_app,
    open_run,
    open_run_here,
    open_workload,
    screen_text,
    set_text,
    short_profile,
    wait_for,
    widget_text,
)


async def test_without_a_target_the_screen_says_where_to_choose_one(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_run(pilot)
        assert "choose a volume and a directory on the Disks screen (d)" in widget_text(app, "#setup-target")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Choose a profile (w) and a target (d) first" in widget_text(app, "#run-message"))


async def test_the_engine_line_offers_what_the_machine_has_not_what_the_path_holds(labtui_home):
    # The app asks `engine_check` (injected here), so a diskspd on the test machine's PATH changes nothing.
    def engines():
        return [("native", None), ("fio", "fio is not installed: apt-get install fio"), ("diskspd", None)]

    app = make_app(labtui_home, engine_check=engines)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        assert screen.query_one("#setup-engine").options == (("native", "native"), ("DiskSpd", "diskspd"))
        assert widget_text(app, "#setup-engines") == "fio is not installed"
        assert "[native]  DiskSpd   fio is not installed" in screen_text(app)


# What a run takes from the screens around it: tags typed for one run, and History's "run again",
# whose profile the header, the Run screen and the Workload editor must all name.
def prepare(home: Path, target: Path, *names: str) -> None:
    """300 ms user profiles `names` in `home`, the first chosen, `target` the chosen directory."""
    store = Store(home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        (store.profiles_dir / f"{name}.toml").write_text(short_profile(name, duration="300ms"))
    store.save_settings(Settings(profile=names[0], profile_origin="user", target=str(target)))




async def run_to_the_end(pilot, screen: RunScreen, started: str | None = None) -> str:
    """Wait for the run (started by the caller) to end; its result id."""
    await wait_for(pilot, lambda: screen.state == "done" and screen.outcome is not None
                   and screen.outcome.id != started, timeout=40, what="the end of the run")
    return screen.outcome.id




async def run_tiny_then_choose_other(pilot) -> tuple[RunScreen, str, WorkloadScreen]:
    """A run of the chosen profile (tiny), then the profile "other" chosen in the editor."""
    await disks_ready(pilot)
    screen = await open_run_here(pilot)
    await pilot.press("ctrl+s")
    tiny_run = await run_to_the_end(pilot, screen)
    await open_workload(pilot)
    workload = pilot.app.screen
    workload._open(next(p for p in workload.profiles if p.name == "other"))
    await pilot.pause()
    return screen, tiny_run, workload


async def test_tags_typed_for_a_run_belong_to_that_run_only(labtui_home, target):
    prepare(labtui_home, target, "tiny")
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        screen = await open_run_here(pilot)
        await set_text(pilot, "#setup-tags", "ux-tag1")
        await pilot.press("enter")
        first = await run_to_the_end(pilot, screen)
        assert screen.query_one("#setup-tags", Input).value == ""  # the field is ready for the next run
        assert "tags: ux-tag1" in screen_text(app)  # and the run says what it was tagged with
        await pilot.press("ctrl+s")
        second = await run_to_the_end(pilot, screen, first)
        await again_from_history(pilot, first)
        await wait_for(pilot, lambda: app.screen is screen and screen.state != "done", what="the run again")
        third = await run_to_the_end(pilot, screen, second)
    store = Store(labtui_home)
    assert [store.find_result(i).tags for i in (first, second, third)] == [("ux-tag1",), (), ()]


async def test_run_again_from_a_result_opened_on_the_run_screen_starts_there_and_every_screen_names_it(
        labtui_home, target):
    """The issue's flow: Run -> end -> o -> h -> a, with another profile chosen meanwhile."""
    prepare(labtui_home, target, "tiny", "other")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, tiny_run, _workload = await run_tiny_then_choose_other(pilot)
        # The other profile run, and its result opened from the Run screen.
        await open_run_here(pilot)
        await pilot.press("ctrl+s")
        await run_to_the_end(pilot, screen, tiny_run)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        # From there to History, and tiny's run again.
        await again_from_history(pilot, tiny_run)
        # The Run screen itself is on show and the run starts: no old result in front of it.
        await wait_for(pilot, lambda: app.screen is screen and screen.state in ("starting", "running", "done"),
                       what="the Run screen with the new run")
        assert not isinstance(app.screen, ResultScreen)
        again = await run_to_the_end(pilot, screen, tiny_run)
        assert Store(labtui_home).find_result(again).profile.name == "tiny"
        assert "profile tiny" in screen_text(app) and "Completed: tiny" in screen_text(app)
        # The editor shows the profile the header names: the one that ran, from its result.
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen))
        await pilot.pause()
        assert app.screen.query_one("#p-name", Input).value == "tiny"
        text = screen_text(app)
        assert "profile tiny" in text and "From a result" in text and tiny_run in text
        # It is no profile file: saving it asks for a name of its own.
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Save as a user profile" in screen_text(app))
        assert "as a result recorded it" in screen_text(app)


async def test_run_again_asks_before_it_replaces_unsaved_edits(labtui_home, target):
    prepare(labtui_home, target, "tiny", "other")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, tiny_run, workload = await run_tiny_then_choose_other(pilot)
        await set_text(pilot, "#p-title", "Edited, not saved")
        await pilot.press("escape")  # out of the field, back to the list
        assert app.unsaved_profile == "other"
        await again_from_history(pilot, tiny_run, answer=None)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        assert "Your edits to other are not saved" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen) and app.profile.name == "other" and not app.run_active
        await pilot.press("w")
        await wait_for(pilot, lambda: app.screen is workload)
        assert workload.query_one("#p-title", Input).value == "Edited, not saved"  # the edits are kept
        await again_from_history(pilot, tiny_run, answer=None)
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "tiny (Short trial) on" in screen_text(app)  # one question: the edits, and what would run
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen, what="the Run screen")
        await run_to_the_end(pilot, screen, tiny_run)
        assert app.profile.name == "tiny" and app.unsaved_profile is None


async def test_the_run_screen_asks_for_the_run_the_command_line_asks_for_the_same_choices(labtui_home, target,
                                                                                          monkeypatch):
    """The Run screen's fields and `labtui run`'s options make one RunRequest, equal for the same choices:
    the request the screen hands its runner's checks (caught there: nothing runs)."""
    from labtui.cli import build_parser
    from labtui.commands import run as run_command

    prepare(labtui_home, target, "tiny")
    app = make_app(labtui_home)
    asked = []
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        screen = await open_run_here(pilot)
        monkeypatch.setattr(screen.driver, "_preflight", lambda profile, _target, request: asked.append((profile,
                                                                                                         request)))
        for field, text in (("#trial-duration", "2s"), ("#trial-file-size", "64M"), ("#trial-repeat", "2"),
                            ("#setup-tags", "hp-adapter, slot 2,hp-adapter")):
            await set_text(pilot, field, text)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: asked, what="the run's request")
    cli = run_command.parse(build_parser().parse_args([
        "run", "-p", "tiny", "-t", str(target), "-e", "native", "--duration", "2s", "--file-size", "64M",
        "--repeat", "2", "--tag", "hp-adapter,slot 2", "--tag", "hp-adapter"]))
    profile, request = asked[0]
    assert request == cli, (request, cli)
    assert request.overrides.duration == 2.0 and request.tags == ("hp-adapter", "slot 2")
    assert (profile.file_size, profile.repeat) == (64 * 1024**2, 2)  # and the profile it runs is overridden so
    different = run_command.parse(build_parser().parse_args(["run", "-p", "tiny", "-t", str(target), "--repeat", "3"]))
    assert different != cli


async def test_an_engines_first_letter_picks_it_where_it_opened_another_screen(labtui_home):
    # On the engine choice, "f" for fio opened the Fleet screen (and "n" did nothing): the Workload form's
    # choices take their values' first letters; this one did not.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        engine = screen.query_one("#setup-engine")
        engine.focus()
        await pilot.press("f")
        await pilot.pause()
        assert app.screen is screen and engine.value == "fio"
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and engine.value == "native"
        await pilot.press("h")  # no engine's letter: the screen's key still
        await wait_for(pilot, lambda: app.screen is not screen, what="History")
