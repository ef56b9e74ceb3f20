"""The drive during real runs: a RAM-backed loop device whose throughput a cgroup-v1 blkio throttle cuts a
second into a step (and, in one run, gives back), and a `smartctl` on PATH answering a real fixture whose
temperature rises between calls. Three short runs of one write step feed every assertion:

- A: unthrottled (the device capped at a steady 16 MiB/s so a busy machine cannot make its own drops), 45 °C;
- B: throttled to 2 MiB/s from ~2 s to ~3.5 s: a drop at the right second with the bytes before it, and
  its recovery; no heat, so its cause is unexplained (a recovered write step is no full cache);
- C: throttled from ~2 s on while smartctl's temperature passes the drive's 82 °C warning threshold: the
  series, its maximum and a *thermal* cause; the comparison of A and C names the temperature difference.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import FIXTURES
from labtui.analysis.answer import first_lines
from labtui.analysis.comparison import compare
from labtui.analysis.context import context_rows
from labtui.engine.events import DriveSampled, RunWarning, SampleTaken, StepFinished
from labtui.machine import devices, drive
from labtui.model.profile import Profile, Step
from labtui.model.result import RunResult
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from loopdev import mounted_ext4

pytestmark = pytest.mark.slow
MIB = 1024 * 1024
FIXTURE = FIXTURES / "smartctl-json" / "SAMSUNG_MZVL21T0HCLR-00B00_23.json"
STEADY_BPS = 16 * MIB  # low enough that a loaded machine still reaches it
THROTTLE_BPS = 2 * MIB
INTERVAL = 0.5
THROTTLE_AT, RELEASE_AT = 2.0, 3.5


def profile() -> Profile:
    step = Step(name="Write 64K random", block_size=65536, write_percent=100, threads=1, outstanding=4,
                duration=6.5, warmup=0.0)
    return Profile(name="drive-drop", title="drive drop", file_size=8 * MIB, free_space_margin=0, steps=(step,))


def smartctl_answers(temperatures: list[int]) -> list[str]:
    """The real fixture, its temperature set per call and the drive's thresholds as smartctl -a writes them."""
    data = json.loads(FIXTURE.read_text())
    answers = []
    for temp in temperatures:
        data["temperature"] = {"current": temp, "op_limit_max": 82, "critical_limit_max": 85}
        data["nvme_smart_health_information_log"]["temperature"] = temp
        answers.append(json.dumps(data))
    return answers


def install_smartctl(folder: Path, temperatures: list[int]) -> None:
    """A `smartctl` in `folder` answering the answers in turn (the last from then on)."""
    answers = folder / "answers"
    answers.mkdir(parents=True)
    for i, text in enumerate(smartctl_answers(temperatures)):
        (answers / f"{i}.json").write_text(text)
    script = folder / "smartctl"
    last = len(temperatures) - 1
    script.write_text(f'#!/bin/sh\nd="{answers}"; n=$(cat "$d/count" 2>/dev/null || echo 0)\n'
                      f'if [ -f "$d/$n.json" ]; then cat "$d/$n.json"; else cat "$d/{last}.json"; fi\n'
                      'echo $((n + 1)) > "$d/count"\n')
    script.chmod(0o755)


@dataclass
class Run:
    result: RunResult
    events: list = field(default_factory=list)


@contextlib.contextmanager
def blkio_group(major_minor: str):
    """A cgroup-v1 blkio group ('drive' in its name) this process joins; its throttle set by the caller."""
    v1 = Path("/sys/fs/cgroup/blkio")
    if not (v1 / "blkio.throttle.write_bps_device").exists():
        pytest.skip("no cgroup-v1 blkio throttle here")
    group = v1 / f"labtui-drive-test-{os.getpid()}"
    group.mkdir()
    before = next((line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                   if line.split(":")[1] == "blkio"), "/")

    def limit(bps: int) -> None:
        for name in ("read_bps_device", "write_bps_device"):
            (group / f"blkio.throttle.{name}").write_text(f"{major_minor} {bps}")

    limit(STEADY_BPS)
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield limit
    finally:
        home = v1 / before.lstrip("/")
        for _ in range(50):
            with contextlib.suppress(OSError):
                for pid in (group / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        (home / "cgroup.procs").write_text(pid)
                group.rmdir()
                break
            time.sleep(0.1)


def run_once(target: Path, store: Store, limit, *, throttle_at: float | None, release_at: float | None) -> Run:
    runner = Runner(profile(), target, store, RunOptions(interval=INTERVAL, drive_every=0.5))
    runner.preflight()
    run = Run(result=None)  # type: ignore[arg-type]

    async def go() -> None:
        throttled = released = False
        async for event in runner.events():
            run.events.append(event)
            if isinstance(event, SampleTaken) and event.phase == "measure":
                if throttle_at is not None and not throttled and event.sample.t >= throttle_at - 1e-6:
                    limit(THROTTLE_BPS)
                    throttled = True
                if release_at is not None and throttled and not released and event.sample.t >= release_at - 1e-6:
                    limit(STEADY_BPS)
                    released = True

    try:
        asyncio.run(go())
    finally:
        limit(STEADY_BPS)
    assert runner.result is not None
    run.result = runner.result
    return run


def held_steady(result: RunResult, throttle_at: float | None, release_at: float | None) -> bool:
    """Whether the unthrottled intervals (before the throttle, and a second after its release) ran near the cap."""
    floor = 0.6 * STEADY_BPS / MIB
    free = [s for s in result.steps[0].samples
            if (throttle_at is None or s.t <= throttle_at - INTERVAL / 2)
            or (release_at is not None and s.t >= release_at + 2 * INTERVAL)]
    return bool(free) and sum(1 for s in free if s.mib_s >= floor) >= 0.8 * len(free)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    mount = tmp_path_factory.mktemp("drive-mnt")
    home = tmp_path_factory.mktemp("drive-home")
    path = os.environ.get("PATH", "")
    drive_env = os.environ.pop("LABTUI_DRIVE", None)  # these runs read the drive (the suite's others do not)
    try:
        with mounted_ext4("drive", 96, mount):
            disk = devices.target_info(mount).disk
            assert disk, f"no block device under {mount}"
            store = Store(home)
            found = {}
            with blkio_group(Path(f"/sys/block/{disk}/dev").read_text().strip()) as limit:
                for name, temps, throttle, release in (
                    ("A", [45], None, None),
                    ("B", [45], THROTTLE_AT, RELEASE_AT),
                    # preflight's reading, then one every 0.5 s: past the 82 °C warning threshold by ~2 s.
                    ("C", [45, 46, 47, 50, 83, 84, 85, 85, 85, 85, 85, 85, 85, 85, 84], THROTTLE_AT, None),
                ):
                    bin_dir = home / f"bin-{name}"
                    install_smartctl(bin_dir, temps)
                    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{path}"
                    for _attempt in range(3):
                        drive.forget_refusals()
                        (bin_dir / "answers" / "count").unlink(missing_ok=True)
                        found[name] = run_once(mount, store, limit, throttle_at=throttle, release_at=release)
                        if held_steady(found[name].result, throttle, release):
                            break
                    else:
                        # The experiment needs the device at its steady cap where it is not throttled: a machine
                        # so loaded that the engine cannot write 16 MiB/s measures the machine, not a drop.
                        reason = f"the machine was too loaded to hold {STEADY_BPS // MIB} MiB/s in run {name}"
                        pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)
            yield found, store, home
    finally:
        os.environ["PATH"] = path
        if drive_env is not None:
            os.environ["LABTUI_DRIVE"] = drive_env
        drive.forget_refusals()


def test_the_unthrottled_run_has_no_drop_and_keeps_the_drive(runs):
    found, _, _ = runs
    step = found["A"].result.steps[0]
    assert found["A"].result.status == "completed"
    assert step.drops == ()
    assert step.drive_before is not None and step.drive_before.source == "smartctl"
    assert step.drive_before.temperature_c == 45.0 and step.drive_before.warning_c == 82.0
    assert any(isinstance(e, DriveSampled) for e in found["A"].events)


def test_a_throttle_is_a_drop_at_its_second_with_the_bytes_before_and_its_recovery(runs):
    found, store, _ = runs
    result = found["B"].result
    step = result.steps[0]
    assert len(step.drops) == 1, " ".join(f"{s.t:.1f}:{s.mib_s:.1f}" for s in step.samples)
    drop = step.drops[0]
    assert abs(drop.t - THROTTLE_AT) <= INTERVAL + 1e-6
    before = sum(s.write_bytes for s in step.samples if s.t <= drop.t + INTERVAL / 2)
    assert drop.bytes_before == before
    assert drop.after_mib_s < 0.3 * drop.before_mib_s
    assert drop.recovered_t is not None and abs(drop.recovered_t - RELEASE_AT) <= 2 * INTERVAL + 1e-6
    # No heat, and a write step that recovered is no full cache (a loaded machine may make it CPU).
    assert drop.cause in ("unexplained", "CPU")
    saved = store.find_result(result.id)
    assert saved.steps[0].drops == step.drops  # in the result file
    said = [e.message for e in found["B"].events if isinstance(e, RunWarning)]
    assert any("throughput dropped at" in m for m in said)  # live, on the Run screen's warnings
    finished = next(e for e in found["B"].events if isinstance(e, StepFinished))
    assert finished.result.drops == step.drops  # the Run screen's summary gets it with the step


def test_show_says_the_drop_and_the_drive(runs):
    found, _, home = runs
    from conftest import labtui_cmd

    out = subprocess.run(labtui_cmd("show", found["B"].result.id), capture_output=True, text=True,
                         env=os.environ | {"LABTUI_HOME": str(home), "COLUMNS": "160"}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "The drive during the run:" in out.stdout
    assert "throughput drop at " in out.stdout and "back at " in out.stdout
    assert "45 → 45 °C" in out.stdout and "smartctl" in out.stdout
    assert "(rule: a drop is a change point" in out.stdout


def test_smartctl_rising_past_its_threshold_makes_a_thermal_drop_and_the_comparison_says_it(runs):
    found, _, _ = runs
    step = found["C"].result.steps[0]
    temps = [s.drive_temp_c for s in step.samples if s.drive_temp_c is not None]
    # The series (readings before measuring began are the step's start, not its intervals'), its maximum,
    # and the rise from the reading before the step.
    assert len(temps) >= 3 and max(temps) == 85.0
    assert step.drive_before is not None and step.drive_before.temperature_c == 45.0
    assert step.drops and step.drops[0].cause == "thermal"
    assert "82 °C" in step.drops[0].evidence
    comparison = compare([found["A"].result, found["C"].result])
    line = first_lines(comparison)[0]
    assert "B ran 40 °C hotter" in line, line
    rows = {row.label: row.values for row in context_rows(comparison.results)}
    assert rows["drive temperature"] == ("45 °C (max 45 °C)", "45 °C (max 85 °C)")
    assert rows["throughput drops"][0] == "none" and "thermal" in rows["throughput drops"][1]


async def test_the_run_screen_shows_the_temperature_and_the_drop(runs):
    """The Run screen's live view fed the throttled run's own events, as the screen folds them."""
    from textual.app import App

    from labtui.run.live import LiveRun
    from labtui.widgets.run_live import LiveView
    from tui_support import widget_text

    found, _, _ = runs

    class Host(App):
        def compose(self):
            yield LiveView(id="run-live")

    app = Host()
    async with app.run_test(size=(120, 35)) as pilot:
        view = app.query_one(LiveView)
        live = LiveRun()
        view.live = live  # what watch_run does, without a runner: the run's events are fed below
        view.going = True
        for event in found["C"].events:
            if isinstance(event, StepFinished):
                text = widget_text(app, "#run-drive")  # while the step ran: the temperature, its max
                assert "Drive 8" in text and "(warning 82 °C)" in text and "max 8" in text and "smartctl" in text
            live.handle(event)
            view.show_all()
            await pilot.pause()
        text = widget_text(app, "#run-drive")
        assert "Throughput drop at " in text and "thermal" in text, text
        assert "throughput dropped at" in widget_text(app, "#run-info")  # the run's warning as it came
