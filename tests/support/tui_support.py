"""What the TUI tests share: a fixed fake machine (disks, volumes, clock, home) and waiting helpers.

The fake devices are real `engine.devices` dataclasses with made-up facts, so tests and
snapshots show the same table on any machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from textual.widgets import Input

from labtui.machine.devices import Disk, Volume
from labtui.machine.target_choice import DeviceScan
from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.history import HistoryScreen, ResultsTable
from labtui.screens.run import RunScreen

GIB = 1024**3
FIXED_NOW = datetime(2025, 3, 14, 9, 26, 53)  # noqa: DTZ001 - the fake clock's local time, as the app's own clock reads
FAKE_HOME = Path("/home/lab")
FAKE_CWD = FAKE_HOME / "bench"  # where labtui was started (exports go there): a test that writes passes its own

FAKE_DISKS = (
    Disk(name="nvme0n1", path="/dev/nvme0n1", kind="NVMe", transport="nvme", model="Samsung SSD 980 PRO 1TB",
         serial="S5GXNX0T123456", firmware="5B2QGXA7", rotational=False, size_bytes=1000 * 1000**3,
         pcie_speed="8.0 GT/s PCIe", pcie_width=4, pcie_max_speed="16.0 GT/s PCIe", pcie_max_width=4,
         pcie_port_max_speed="8.0 GT/s PCIe", pcie_port_max_width=16, partitions=["nvme0n1p1", "nvme0n1p2"]),
    Disk(name="sda", path="/dev/sda", kind="SATA SSD", transport="sata", model="CT500MX500SSD1",
         serial="2027E2912345", firmware="M3CR033", rotational=False, size_bytes=500 * 1000**3,
         sata_speed="6.0 Gbps", sata_max_speed="6.0 Gbps", partitions=["sda1"]),
    Disk(name="sdb", path="/dev/sdb", kind="HDD", transport="sata", model="ST4000DM004-2CV104",
         firmware="0001", rotational=True, size_bytes=4000 * 1000**3),
)

FAKE_VOLUMES = (
    Volume(mount_point="/", source="/dev/nvme0n1p2", filesystem="ext4", device="/dev/nvme0n1p2", disk="nvme0n1",
           size_bytes=915 * GIB, free_bytes=412 * GIB, dev_id="259:2"),
    Volume(mount_point="/boot/efi", source="/dev/nvme0n1p1", filesystem="vfat", device="/dev/nvme0n1p1",
           disk="nvme0n1", size_bytes=512 * 1024**2, free_bytes=500 * 1024**2, dev_id="259:1"),
    Volume(mount_point="/data", source="/dev/sda1", filesystem="xfs", device="/dev/sda1", disk="sda",
           size_bytes=465 * GIB, free_bytes=GIB + GIB // 2, dev_id="8:1"),
    Volume(mount_point="/dev/shm", source="tmpfs", filesystem="tmpfs", pseudo=True,
           size_bytes=16 * GIB, free_bytes=16 * GIB, dev_id="0:25"),
    Volume(mount_point="/mnt/iso", source="/dev/sr0", filesystem="iso9660", device="/dev/sr0", read_only=True,
           size_bytes=4 * GIB, free_bytes=0, dev_id="11:0"),
)


# The fake machine's engines: native and fio run (tests that start fio require the real one),
# DiskSpd is missing, whatever this machine has on its PATH.
FAKE_ENGINES = (
    ("native", None),
    ("fio", None),
    ("diskspd", "DiskSpd is not installed: put diskspd on the PATH (it is at github.com/microsoft/diskspd-for-linux)"
                " or set diskspd_path in labtui's config.toml"),
)


def fake_scan() -> DeviceScan:
    return DeviceScan(FAKE_DISKS, FAKE_VOLUMES)


def fake_engines() -> list[tuple[str, str | None]]:
    return list(FAKE_ENGINES)


def make_app(home: Path, *, device_source: Callable[[], DeviceScan] = fake_scan,
             engine_check: Callable[[], list[tuple[str, str | None]]] = fake_engines, store: Store | None = None,
             **kwargs):
    """The app on the fake machine: its devices, engines, clock, home and current directory, and an xterm's glyphs
    (TERM and LABTUI_GLYPHS of the shell running the tests play no part unless a test passes them)."""
    from labtui.app import LabtuiApp

    kwargs.setdefault("plain_glyphs", False)
    return LabtuiApp(store=store or Store(home), device_source=device_source, engine_check=engine_check,
                     clock=lambda: FIXED_NOW, home=kwargs.pop("fake_home", FAKE_HOME), cwd=kwargs.pop("cwd", FAKE_CWD),
                     cursor_blink=False, **kwargs)


async def wait_for(pilot, condition: Callable[[], object], timeout: float = 30.0, what: str = "condition"):
    """Let the app run until `condition()` is true (workers, timers and screens take a few ticks).

    The timeout is generous: it returns as soon as the condition holds, and a loaded machine
    (other tests beside this one, a busy CI runner) must never fail a test; a hang still does.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = condition()
        if result:
            await pilot.pause(0.05)  # and let it paint
            return result
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def disks_ready(pilot) -> None:
    from labtui.screens.disks import DisksScreen

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, DisksScreen) and pilot.app.screen.scan is not None,
                   what="the device scan")
    await pilot.pause()


async def open_workload(pilot) -> None:
    from labtui.screens.workload import WorkloadScreen

    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, WorkloadScreen) and pilot.app.screen.forms_ready,
                   what="the workload editor")
    await pilot.pause()


async def start_fleet(pilot) -> str:
    """Ctrl+S on the Fleet screen, then y to its question (it writes to every host's disk, so it asks):
    the question's text."""
    from labtui.screens.confirm import ConfirmModal

    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmModal), what="Start's question")
    asked = widget_text(pilot.app, "#confirm-message")
    await pilot.press("y")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ConfirmModal), what="the question answered")
    return asked


async def palette_search(pilot, text: str) -> None:
    """Open the command palette and type `text` into it, as a person would; return once the
    search has finished (it runs in a worker: a fixed pause is too short on a loaded machine)."""
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), what="the command palette")
    await palette_type(pilot, text)


async def palette_type(pilot, text: str) -> None:
    """Type `text` on into the open command palette; return once its search has finished."""
    from textual.command import CommandPalette
    from textual.widgets import Input

    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette)
    wanted = palette.query_one(Input).value + text
    await pilot.press(*text)

    def searched() -> bool:
        searching = any(w.group == CommandPalette._GATHER_COMMANDS_GROUP and not w.is_finished
                        for w in pilot.app.workers)
        return palette.query_one(Input).value == wanted and not searching

    await wait_for(pilot, searched, what=f"the palette's search for {wanted!r}")


def screen_text(app) -> str:
    """Everything visible on screen as plain text, line by line (what a person would read)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def widget_text(app, selector: str) -> str:
    """The whole text of one Static on the current screen, however the terminal's width wraps it.

    For a message that holds a path or other text of varying length: the screen breaks its
    lines where the width falls, so a phrase read off the screen may be split across two.
    """
    widget = app.screen.query_one(selector)
    if not widget.display:
        return ""
    content = widget.content
    if hasattr(content, "plain"):
        return content.plain
    if isinstance(content, str):
        return content
    import io

    from rich.console import Console

    # A rich renderable (a Group of Texts, a table): laid out so wide that nothing wraps.
    console = Console(file=io.StringIO(), width=100_000, color_system=None, legacy_windows=False)
    console.print(content)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())


async def type_into(pilot, selector: str, text: str) -> None:
    """Focus the input `selector` and replace its text by typing, as a person would."""
    field = pilot.app.screen.query_one(selector)
    field.focus()
    await pilot.pause()
    await pilot.press("end", "ctrl+u", *text)
    await pilot.pause()


async def set_text(pilot, selector: str, text: str) -> None:
    """Replace an input's text at once (posts Input.Changed like typing; quicker than key by key)."""
    field = pilot.app.screen.query_one(selector)
    field.focus()
    field.value = text
    await pilot.pause()


def history_results():
    """Saved results for History, Compare and snapshots: two disks, two hosts, an abort, an import, tags."""
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import EngineInfo, TargetInfo

    sata = TargetInfo(path="/data/labtui", device="/dev/sda1", disk="sda", kind="SATA SSD", model="CT500MX500SSD1",
                      serial="2027E2912345", firmware="M3CR033", transport="sata", filesystem="xfs",
                      mount_point="/data")
    first = make_result("20240501-103005-aaaa", tags=("startech-adapter",))
    second = make_result("20240502-091500-bbbb", minutes=60 * 23, tags=("hp-adapter",))
    second = replace(second, steps=tuple(replace(s, read=_scaled(s.read, 0.8), write=_scaled(s.write, 0.8))
                                         for s in second.steps))
    sata_run = replace(make_result("20240503-140000-cccc", minutes=60 * 51), target=sata, tags=())
    aborted = replace(make_result("20240504-080000-dddd", minutes=60 * 70), status="aborted",
                      error="cancelled by the user", steps=make_result().steps[:1], tags=())
    imported = replace(make_result("20240505-120000-eeee", minutes=60 * 98), source="import",
                       source_file="lab7-diskspd.xml", engine=EngineInfo("diskspd", "2.2"), tags=(),
                       host=replace(first.host, name="win-lab7"))
    return [first, second, sata_run, aborted, imported]


def _scaled(stats, factor: float):
    from dataclasses import replace

    ios = int(stats.ios * factor)
    return replace(stats, ios=ios, bytes=stats.bytes * ios // stats.ios if stats.ios else 0)


def save_history(home: Path, broken: bool = True):
    """Save `history_results()` in the store at `home` (and one broken file); returns the results."""
    store = Store(home)
    results = history_results()
    for result in results:
        store.save_result(result)
    if broken:
        (store.results_dir / "20240506-000000-ffff.toml").write_text("schema = 1\nid = [broken\n")
    return results


class ScriptedRunner:
    """Stands in for the engine's Runner on the Run screen: replays fixed events (no disk, no clock).

    With `result` it then ends as a finished run does; without, it waits until it is cancelled.
    """

    def __init__(self, events, result=None, engine: str = "native") -> None:
        from types import SimpleNamespace

        self.script = list(events)
        self.final = result
        self.engine = SimpleNamespace(name=engine)
        self.result = None
        self.saved_path = None

    async def events(self):
        for event in self.script:
            yield event
        if self.final is None:
            await asyncio.Event().wait()
        self.result = self.final


def scripted_run(result, *, finished: bool):
    """The events of `result`'s run: its first step measured interval by interval, the rest as finished steps."""
    from labtui.engine.events import PrepareProgress, RunFinished, RunStarted, SampleTaken, StepFinished, StepStarted

    profile = result.profile
    events = [RunStarted(result.id, profile, result.target, result.engine, len(result.steps), profile.planned_seconds),
              PrepareProgress(profile.file_size, profile.file_size, 2.0)]
    for index, step in enumerate(result.steps):
        events.append(StepStarted(index, len(result.steps), step.step, 1, step.command_line))
        events += [SampleTaken(index, "measure", sample) for sample in step.samples]
        if finished or index + 1 < len(result.steps):
            events.append(StepFinished(index, step))
        elif not finished:
            break
    if finished:
        events.append(RunFinished(result, None))
    return ScriptedRunner(events, result if finished else None, result.engine.name)


def wavy_result(result_id: str = "20240507-101500-abcd"):
    """make_result() with 40 one-second samples of varying rate per step (charts worth looking at)."""
    import math
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import Sample

    base = make_result(result_id, minutes=60 * 144)
    steps = []
    for index, step in enumerate(base.steps):
        samples = []
        for i in range(40):
            ios = int(3000 + 400 * math.sin(i / 4 + index) + 15 * i)
            reads, writes = (0, ios) if step.step.writes else (ios, 0)
            lat = 8 / ios * 1000
            samples.append(Sample(t=i + 1.0, seconds=1.0, read_ios=reads, read_bytes=reads * 65536, write_ios=writes,
                                  write_bytes=writes * 65536, read_lat_mean_ms=lat if reads else None,
                                  read_lat_p99_ms=3 * lat if reads else None, write_lat_mean_ms=lat if writes else None,
                                  write_lat_p99_ms=3 * lat if writes else None, cpu_percent=12.0 + i % 5))
        # The step's totals are its samples' sums, as a real run's are.
        from labtui.model.result import DirectionStats, LatencySummary
        from labtui.series import merge_samples

        total = merge_samples(samples)
        read = DirectionStats(total.read_ios, total.read_bytes, total.seconds)
        write = DirectionStats(total.write_ios, total.write_bytes, total.seconds)
        mean = total.read_lat_mean_ms or total.write_lat_mean_ms
        p99 = total.read_lat_p99_ms or total.write_lat_p99_ms
        latency = replace(step.latency, mean=mean, min=mean / 8, p50=mean * 0.9, p90=mean * 1.8, p95=mean * 2.2,
                          p99=p99, p999=p99 * 1.6, p9999=p99 * 2.4, max=p99 * 3)
        steps.append(replace(step, step=replace(step.step, duration=40.0), samples=tuple(samples), read=read,
                             write=write, latency=latency,
                             read_latency=latency if read.ios else LatencySummary(),
                             write_latency=latency if write.ios else LatencySummary(),
                             cpu_percent=total.cpu_percent))
    profile = replace(base.profile, steps=tuple(s.step for s in steps))
    return replace(base, profile=profile, steps=tuple(steps))


def short_profile(name: str = "tiny", duration: str = "2s", *, threads: int = 1) -> str:
    """A user profile file: one 4 KiB random read step with no warm-up, on a 16 MiB test file."""
    return f"""schema = 1
name = "{name}"
title = "Short trial"
file_size = "16MiB"
free_space_margin = "0B"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
threads = {threads}
outstanding = 4
duration = "{duration}"
warmup = "0s"
"""


async def open_history(pilot) -> HistoryScreen:
    await disks_ready(pilot)
    await pilot.press("h")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.loaded,
                   what="the history listing")
    return pilot.app.screen


def shown_ids(screen: HistoryScreen) -> list[str]:
    return [row.key for row in screen.query_one(ResultsTable).rows]


async def move_to(pilot, screen: HistoryScreen, key: str) -> None:
    screen.query_one(ResultsTable).move_to(key)
    await pilot.pause()


async def open_run(pilot) -> RunScreen:
    await disks_ready(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines,
                   what="the engine check")
    await pilot.pause()
    return pilot.app.screen


async def again_from_history(pilot, result_id: str, answer: str | None = "y") -> None:
    """History's `a` on `result_id`, and `answer` to its question (None: the caller answers)."""
    if isinstance(pilot.app.focused, Input):
        await pilot.press("escape")  # the Run screen opens with the cursor in its tags: h would be typed there
    await pilot.press("h")
    history = pilot.app.screen
    assert isinstance(history, HistoryScreen)
    table = history.query_one(ResultsTable)
    await wait_for(pilot, lambda: table.row_index(result_id) is not None, what="the result in History")
    table.move_to(result_id)
    await pilot.pause()
    await pilot.press("a")
    if answer is not None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmModal), what="Run again?")
        await pilot.press(answer)


async def open_run_here(pilot) -> RunScreen:
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines,
                   what="the engine check")
    return pilot.app.screen



async def history_ready(pilot) -> HistoryScreen:
    """The History screen listed and drawn (what the History, Compare and result snapshots start from)."""
    screen = await open_history(pilot)
    await pilot.pause()
    return screen


# The two terminal sizes a screen's snapshots are taken at: the smallest we support and a roomy one.
SNAPSHOT_SIZES = [(80, 24), (120, 40)]
each_size = pytest.mark.parametrize("size", SNAPSHOT_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
