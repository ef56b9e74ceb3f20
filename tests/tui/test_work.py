"""Work that fails off the UI thread: each failure is shown once, in the one format of labtui.tui.work."""

from __future__ import annotations

from pathlib import Path

from labtui.errors import LabtuiError
from labtui.results.store import Store
from labtui.run.runner import Runner
from labtui.screens.disks import DisksScreen
from labtui.screens.history import HistoryScreen
from labtui.screens.run import RunScreen
from labtui.settings import Settings
from labtui.tui.work import failure_text
from tui_support import disks_ready, fake_scan, make_app, screen_text, short_profile, start_fleet, wait_for, widget_text


def errors(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.severity == "error"]


def test_the_format_names_a_bug_as_one_and_lets_labtui_errors_speak_for_themselves():
    assert failure_text(LabtuiError("cannot read /sys/block: permission denied")) == (
        "cannot read /sys/block: permission denied")
    assert failure_text(KeyError("nvme0n1")) == "internal error: KeyError: 'nvme0n1'"


async def test_a_device_source_that_raises_is_reported_once_and_f5_tries_again(labtui_home):
    calls = []

    def source():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("sysfs went away")
        return fake_scan()

    app = make_app(labtui_home, device_source=source)
    async with app.run_test(size=(120, 35)) as pilot:
        wanted = "Could not read the disks: internal error: RuntimeError: sysfs went away"
        await wait_for(pilot, lambda: errors(app), what="the failure")
        assert errors(app) == [wanted]
        assert widget_text(app, "#volume-detail") == f"{wanted} (F5 tries again)"
        assert isinstance(app.screen, DisksScreen) and not app.screen.query_one("#volumes").loading
        await pilot.press("f5")
        await disks_ready(pilot)
        assert "Samsung SSD 980 PRO" in screen_text(app) and len(errors(app)) == 1


class SummariesFail(Store):
    def summaries(self, progress=None):
        raise OSError(5, "Input/output error")


async def test_a_store_whose_summaries_raise_is_reported_once_on_history(labtui_home):
    app = make_app(labtui_home, store=SummariesFail(labtui_home))
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: errors(app), what="the failure")
        await pilot.pause(0.2)
        assert errors(app) == ["Could not read the results: internal error: OSError: [Errno 5] Input/output error"]
        assert isinstance(app.screen, HistoryScreen) and not app.screen.loaded


async def test_a_preflight_that_raises_a_plain_error_is_shown_in_place_and_nothing_starts(labtui_home, tmp_path,
                                                                                         monkeypatch):
    store = Store(labtui_home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / "tiny.toml").write_text(short_profile("tiny"))
    target = tmp_path / "target"
    target.mkdir()
    store.save_settings(Settings(profile="tiny", profile_origin="user", target=str(target)))

    def preflight(self):
        raise RuntimeError("the probe broke")

    monkeypatch.setattr(Runner, "preflight", preflight)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.engines, what="the engines")
        screen = app.screen
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Not started" in screen_text(app), what="the refusal")
        assert widget_text(app, "#run-message") == (
            "Not started: internal error: RuntimeError: the probe broke\nNothing was written.")
        assert screen.state == "idle" and not app.run_active and errors(app) == []
        assert list(Path(target).iterdir()) == [] and store.summaries()[0] == []


class RunThatWillNotStop:
    """A run whose stopping raises, as a bug in it would: what quitting and a signal must still survive."""

    outcome = None

    async def abort(self, by: str) -> None:
        raise RuntimeError("the engine would not stop")


async def start_a_run_that_will_not_stop(app, pilot) -> None:
    await disks_ready(pilot)
    app.active_run = RunThatWillNotStop()
    app.run_active = True


async def test_quitting_when_stopping_the_run_raises_ends_labtui_and_says_why_in_one_line(labtui_home):
    from labtui.screens.confirm import ConfirmModal

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_a_run_that_will_not_stop(app, pilot)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None, what="labtui's end")
    from labtui.app import exit_line

    assert app.return_code == 1
    assert exit_line(app) == ("labtui: quitting, but stopping the run failed: internal error: RuntimeError: "
                              "the engine would not stop; its partial result may not be saved")


async def test_a_signal_when_stopping_the_run_raises_still_ends_labtui_with_one_line(labtui_home):
    import signal

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_a_run_that_will_not_stop(app, pilot)
        app._on_signal(signal.SIGTERM)
        await wait_for(pilot, lambda: app.return_code is not None, what="labtui's end")
    from labtui.app import exit_line

    assert app.return_code == 1
    assert exit_line(app) == ("labtui: stopped by SIGTERM, but stopping the run failed: internal error: "
                              "RuntimeError: the engine would not stop; its partial result may not be saved")


async def test_a_fleet_run_that_raises_is_one_line_and_the_screen_can_start_again(labtui_home, tmp_path, monkeypatch):
    from labtui.fleet import requests
    from labtui.fleet.session import Fleet
    from labtui.screens.fleet import FleetScreen

    async def broken(self):
        raise RuntimeError("the wire broke")

    monkeypatch.setattr(Fleet, "run", broken)
    monkeypatch.setattr(requests, "ssh_program", lambda: "ssh")  # never started: the run breaks first
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[hosts]]\nname = "lab-01"\nssh = "lab@192.0.2.1"\ntarget = "/srv/bench"\n')
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        screen = app.screen
        await start_fleet(pilot)
        await wait_for(pilot, lambda: errors(app), what="the failure")
        await pilot.pause(0.2)
        wanted = "The fleet run failed: internal error: RuntimeError: the wire broke"
        assert errors(app) == [wanted]
        assert widget_text(app, "#fleet-status") == wanted
        assert not app.run_active and app.active_run is None  # quitting no longer asks, nor waits for it
        assert not screen.running and screen.check_action("start", ()) is True  # ctrl+s tries again
