"""The TUI shows text from outside labtui as it is: no markup read, no escape obeyed, no crash (Pilot).

Results, a profile file, a disk's model, a mount point and a folder's name carry the corpus; every screen that
shows them is visited and a toast with the corpus is raised on each, with a tripwire on Rich's and
Textual's markup parsers (tripwire.py). Typed on History, a tag "[red]" vanished from the "Tags of"
toast, and a target directory named "/mnt/a/[/]" chosen on Disks ended the TUI with a MarkupError.
One app goes through it all: each start of the TUI costs a second of the suite.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from textual.widgets import Input

from corpus import ALL_MARKUP, ESCAPES, HOSTILE, MARKUP, RAW, shown
from factories import make_result
from labtui.machine.devices import Volume
from labtui.machine.target_choice import DeviceScan
from labtui.model.result import RunResult
from labtui.results.store import Store
from labtui.screens.target_directory import TargetDirectoryModal
from labtui.settings import Settings
from labtui.widgets.volume_table import VolumeTable
from tripwire import markup_tripwire
from tui_support import FAKE_DISKS, FAKE_VOLUMES, GIB, disks_ready, make_app, screen_text, scripted_run, wait_for

EVIL = f"evil {ALL_MARKUP}"  # markup alone: what a screen shows of it must read the same


def _toasts(app) -> list[str]:
    from textual.widgets._toast import Toast

    return [" ".join(str(t.render()).split()) for t in app.screen.query(Toast)]


def _hostile_scan(volume: Path) -> Callable[[], DeviceScan]:
    """The fake machine, its models and a mount point hostile, and `volume` mounted (a real directory)."""
    disks = tuple(replace(d, model=f"{d.model} {EVIL}", serial=f"S {HOSTILE}") for d in FAKE_DISKS)
    volumes = tuple(replace(v, mount_point=f"/mnt/{EVIL}") if v.mount_point == "/data" else v for v in FAKE_VOLUMES)
    mounted = Volume(mount_point=str(volume), source="/dev/sda2", filesystem="ext4", device="/dev/sda2", disk="sda",
                     size_bytes=100 * GIB, free_bytes=50 * GIB, dev_id="8:2")
    return lambda: DeviceScan(disks, (*volumes, mounted))


def _hostile_store(home) -> list[RunResult]:
    store = Store(home)
    result = make_result("20240501-103005-aaaa")
    target = replace(result.target, model=f"model {EVIL}", path=f"/mnt/{EVIL}/labtui", mount_point=f"/mnt/{EVIL}")
    steps = tuple(replace(s, step=replace(s.step, name=f"step{i} {EVIL}"), command_line=f"fio {HOSTILE}")
                  for i, s in enumerate(result.steps))
    first = replace(result, target=target, steps=steps, tags=(f"tag {EVIL}",), warnings=(f"warned {HOSTILE}",),
                    profile=replace(result.profile, title=f"title {EVIL}", description=f"about {HOSTILE}"),
                    host=replace(result.host, name=f"host {EVIL}"))
    second = replace(first, id="20240502-103005-bbbb", status="aborted", error=f"error {HOSTILE}")
    for r in (first, second):
        store.save_result(r)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / "evil.toml").write_text(
        f'schema = 1\nname = "evil"\ntitle = "title {EVIL}"\ndescription = "about {EVIL}"\nfile_size = "16MiB"\n'
        f'[[steps]]\nname = "Read {EVIL}"\nblock_size = "4KiB"\nduration = "1s"\n')
    store.save_settings(Settings(profile="evil", profile_origin="user"))  # the Workload and Run screens show it
    return [first, second]


async def test_every_screen_shows_outside_text_as_it_is(labtui_home, tmp_path):
    first, _ = _hostile_store(labtui_home)
    volume = tmp_path / "volume"
    target = volume / "[red]evil" / "[" / "]"  # its path ends in "[red]evil/[/]"
    target.mkdir(parents=True)
    # Made by whoever may write there, its name listed in the dialog: every escape but the link's "/".
    (volume / ("folder evil " + "".join(v for k, v in ESCAPES.items() if k != "osc8"))).mkdir()
    app = make_app(labtui_home, device_source=_hostile_scan(volume))
    with markup_tripwire() as parsed:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await disks_ready(pilot)
            # A target directory named like markup, chosen on Disks: said as it is (it was a MarkupError).
            table = app.screen.query_one(VolumeTable)
            table.move_cursor(row=table.get_row_index(f"vol:{volume}"))
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal), what="the target dialog")
            await wait_for(pilot, lambda: "folder evil" in screen_text(app), what="the folders listed")
            seen = [screen_text(app)]
            app.screen.query_one("#target-path", Input).value = str(target)
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.target is not None and _toasts(app), what="the target chosen")
            chosen = _toasts(app)
            app.clear_notifications()
            seen.append(screen_text(app))
            # Tags typed on History: "[red]" said in the toast (it vanished), "[/]" no crash.
            await pilot.press("h")
            await pilot.pause(0.3)
            await pilot.press("t")
            await wait_for(pilot, lambda: app.screen.query(Input), what="the tags prompt")
            app.screen.query_one(Input).value = "[red]evil, [/]evil, [link=https://evil.example]evil"
            await pilot.press("enter")
            await wait_for(pilot, lambda: _toasts(app), what="the tags toast")
            tagged = _toasts(app)
            app.clear_notifications()
            for keys in ([], ["enter"], ["escape", "space", "down", "space", "c"], ["w"], ["r"], ["f"], ["d"]):
                await pilot.press(*keys)
                await pilot.pause(0.3)
                seen.append(screen_text(app))
                if keys == ["r"]:  # a run of the hostile profile and target (as read), live then done
                    app.screen.begin(scripted_run(Store(labtui_home).find_result(first.id), finished=True))
                    await wait_for(pilot, lambda: app.screen.outcome is not None, what="the scripted run's end")
                    await pilot.pause(0.3)
                    seen.append(screen_text(app))
                # Every screen's toasts pass one gate (LabtuiApp.notify): outside text in one, raised there.
                app.screen.notify(f"toast {HOSTILE}", title=f"title {EVIL}")
                await pilot.pause(0.1)
                seen.append(" ".join(_toasts(app)))
                app.clear_notifications()
            assert app.is_running and app.target.directory == target
    assert any(f"Runs write to {target}" in t for t in chosen), chosen
    assert Store(labtui_home).load_settings().target == str(target)
    assert any("Tags of 20240502-103005-bbbb: [red]evil, [/]evil, [link=https://evil.example]evil" in t
               for t in tagged), tagged
    text = "\n".join(seen)
    assert not parsed, parsed[0]
    bad = RAW.search(text)
    assert bad is None, text[max(0, bad.start() - 300):bad.end() + 100]
    flat = " ".join(text.split())
    for shown_text in (MARKUP["close"], MARKUP["red"], MARKUP["link"], "[@click=app.quit]", "evil \\x1b[2J\\x1b[H",
                       str(target)):
        assert shown_text in flat, shown_text
    assert f"toast {' '.join(shown(HOSTILE).split())}" in flat and f"title {EVIL}" in flat
