"""What a run measured: run and step results, samples, and the host, target and engine they were of.

Results hold exact counts (I/Os, bytes, measured seconds) from which every rate is derived; their
file is a format of its own (labtui.results.result_file). The profile a result ran is profile.py's.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime

from labtui.model.profile import MIB, SCHEMA, Profile, Step
from labtui.model.verification import ReadBack, Verification


@dataclass(frozen=True)
class HostInfo:
    name: str | None = None
    os: str | None = None
    kernel: str | None = None
    cpu_model: str | None = None
    cpu_count: int | None = None
    ram_bytes: int | None = None


@dataclass(frozen=True)
class TargetInfo:
    """Where a run wrote, and the hardware underneath. None = the kernel did not say."""

    path: str
    device: str | None = None  # the block device holding the file system, e.g. /dev/nvme0n1p2
    disk: str | None = None  # its whole disk, e.g. nvme0n1
    kind: str | None = None  # NVMe, SATA SSD, HDD, USB, virtual ...
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    transport: str | None = None  # nvme, sata, usb, virtio, ...
    rotational: bool | None = None
    size_bytes: int | None = None
    pcie_speed: str | None = None  # current link, e.g. "8.0 GT/s PCIe"
    pcie_width: int | None = None
    pcie_max_speed: str | None = None
    pcie_max_width: int | None = None
    # The PCIe port the device hangs off (root port or switch): what the slot side could do.
    pcie_port_max_speed: str | None = None
    pcie_port_max_width: int | None = None
    sata_speed: str | None = None  # the SATA link now, as libata says it: "6.0 Gbps"
    sata_max_speed: str | None = None  # the fastest the drive supports (its IDENTIFY data)
    usb_speed: str | None = None  # the USB device's signalling rate: "5000 Mb/s"
    sas_speed: str | None = None  # the SAS link's negotiated rate: "12.0 Gbit"
    filesystem: str | None = None
    mount_point: str | None = None

    @property
    def pcie_link(self) -> str | None:
        return pcie_link_text(self.pcie_speed, self.pcie_width, self.pcie_max_speed, self.pcie_max_width)

    @property
    def disk_device(self) -> str | None:
        """The whole disk's kernel name ("nvme0n1", "loop0"), else the block device's; None: not known."""
        return self.disk or (self.device.rsplit("/", 1)[-1] if self.device else None) or None

    @property
    def disk_name(self) -> str:
        """What a line calls the disk: its model, else its device ("loop0", "vda (virtual)")."""
        return disk_name(self.model, self.disk_device, self.kind)


# Device names that say what they are: a loop device is a file, zram and a RAM disk are memory.
_SAYS_WHAT = ("loop", "zram", "ram")


def disk_name(model: str | None, device: str | None, kind: str | None) -> str:
    """What a line calls a disk: its `model`, else its kernel `device` name, with "(virtual)" where the
    name does not say so ("loop0", "vda (virtual)"), else "unknown disk". A person's word, not the
    identity runs are matched by (disk_identity)."""
    if model:
        return model
    if not device:
        return "unknown disk"
    return f"{device} (virtual)" if kind == "virtual" and not device.startswith(_SAYS_WHAT) else device


def pcie_link_text(speed: str | None, width: int | None, max_speed: str | None, max_width: int | None) -> str | None:
    """"8.0 GT/s PCIe x4", with the maximum added where the link runs below it; None if unknown."""
    if not speed and not width:
        return None
    current = f"{speed or '?'} x{width or '?'}"
    if max_speed or max_width:
        maximum = f"{max_speed or '?'} x{max_width or '?'}"
        if maximum != current:
            return f"{current} (max {maximum})"
    return current


@dataclass(frozen=True)
class EngineInfo:
    name: str
    version: str | None = None
    command_line: str | None = None  # for a whole-run engine invocation; steps carry their own


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class DirectionStats:
    """Exact counts for one direction (read, write or both) over the measured seconds."""

    ios: int = 0
    bytes: int = 0
    seconds: float = 0.0

    @property
    def iops(self) -> float:
        return self.ios / self.seconds if self.seconds > 0 else 0.0

    @property
    def bytes_per_second(self) -> float:
        return self.bytes / self.seconds if self.seconds > 0 else 0.0

    @property
    def mib_s(self) -> float:
        return self.bytes_per_second / MIB

    def __add__(self, other: DirectionStats) -> DirectionStats:
        return DirectionStats(self.ios + other.ios, self.bytes + other.bytes, max(self.seconds, other.seconds))


@dataclass(frozen=True)
class LatencySummary:
    """Completion latency in milliseconds. A field is None when it was not measured."""

    mean: float | None = None
    min: float | None = None
    max: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    p999: float | None = None
    p9999: float | None = None

    @property
    def measured(self) -> bool:
        return self.mean is not None or self.p50 is not None


@dataclass(frozen=True)
class Sample:
    """One interval of a step's measured phase: exact counts, plus latency where captured."""

    t: float  # seconds since the measured phase began, at the end of this interval
    seconds: float  # the interval's length
    read_ios: int = 0
    read_bytes: int = 0
    write_ios: int = 0
    write_bytes: int = 0
    read_lat_mean_ms: float | None = None
    read_lat_p99_ms: float | None = None
    write_lat_mean_ms: float | None = None
    write_lat_p99_ms: float | None = None
    cpu_percent: float | None = None
    # The busiest engine worker's CPU use in % of one CPU, and whether the interval was
    # CPU-bound (labtui.engine.cpubound); None where the engine does not say.
    engine_cpu_percent: float | None = None
    engine_bound: bool | None = None
    # What the drive said in this interval, where it was read then (every few seconds, not every
    # interval: labtui.run.drive_watch): its temperature (°C), its PCIe link (GT/s, lanes) and its
    # thermal-management transition count so far. None where nothing was read in the interval.
    drive_temp_c: float | None = None
    link_gts: float | None = None
    link_width: int | None = None
    thermal_transitions: int | None = None

    @property
    def read_iops(self) -> float:
        return self.read_ios / self.seconds if self.seconds > 0 else 0.0

    @property
    def write_iops(self) -> float:
        return self.write_ios / self.seconds if self.seconds > 0 else 0.0

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def read_mib_s(self) -> float:
        return self.read_bytes / self.seconds / MIB if self.seconds > 0 else 0.0

    @property
    def write_mib_s(self) -> float:
        return self.write_bytes / self.seconds / MIB if self.seconds > 0 else 0.0

    @property
    def mib_s(self) -> float:
        return self.read_mib_s + self.write_mib_s


SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))


@dataclass(frozen=True)
class SteadyCriterion:
    """One condition of a steady-state rule, as judged over the window."""

    name: str  # "range", "excursion" (SNIA) or "deviation", "slope" (fio)
    # In % of the window's mean (percent), else the limit's unit; None (left out of the file): no
    # mean to judge by. The defaults only let a file without `value` read back.
    value: float | None = None
    limit: float = 0.0
    percent: bool = True
    held: bool = False


@dataclass(frozen=True)
class SteadyState:
    """How a steady-state step went: every round's figure, the window judged, each criterion.

    The step's counts and latency are the window's (SNIA reports the steady-state window), and so
    is its figure: `mean`, once the step has ended, is the window's figure measured whole (its I/Os
    or bytes over its seconds, its latency weighted by I/Os: window_figure()), the very figure the
    step shows. The criteria are judged on the rounds' own figures, against their average, as SNIA
    and fio define them; it differs from the window's figure where rounds differ in length.
    """

    rule: str  # as the step spelled it: "snia", "iops_slope:0.1%"
    figure: str  # what each round's figure is: iops, mib_s or latency (mean, ms)
    round_seconds: float
    window: int  # rounds in the measurement window
    max_rounds: int
    attained: bool
    rounds: tuple[float, ...] = ()  # every round's figure, in order
    window_start: int | None = None  # the judged window's first round (1-based); None: too few rounds
    window_figures: tuple[float, ...] = ()  # the figures judged (fio judges its own per-second figures)
    mean: float | None = None  # the window's figure: while judging, its rounds' average; once ended, the step's
    slope: float | None = None  # the window's best-fit line, per round
    criteria: tuple[SteadyCriterion, ...] = ()
    judged_by: str = "labtui"  # "fio" where fio's own steadystate check decided

    @property
    def finished(self) -> bool:
        """Whether the step stops after these rounds: steady, or at its round limit."""
        return self.attained or len(self.rounds) >= self.max_rounds

    @property
    def verdict(self) -> str:
        """"steady after 7 rounds" or "not steady after 25 rounds"."""
        count = len(self.rounds)
        rounds = f"{count} round{'s' if count != 1 else ''}"
        return f"steady after {rounds}" if self.attained else f"not steady after {rounds}"


# What a drive's temperature can be, whoever says it (smartctl, an hwmon sensor, a result file from
# elsewhere): a sensor that cannot be read says 0 K (-273 °C) or 0xFFFF K (65262 °C), a file may say nan
# or inf. None of those is a temperature: kept, it was shown ("30 → 65262 °C") and named as the cause of
# a difference ("the drive ran hotter"). It is unknown instead.
COLDEST_C, HOTTEST_C = -60.0, 200.0


def celsius(value: float | None) -> float | None:
    """`value` where it is a temperature a drive can have, else None."""
    return value if value is not None and math.isfinite(value) and COLDEST_C < value < HOTTEST_C else None


def _temperatures_only(facts: object, *names: str) -> None:
    for name in names:
        value = getattr(facts, name)
        if value is not None and celsius(value) is None:
            object.__setattr__(facts, name, None)  # frozen: set once, as it is made


@dataclass(frozen=True)
class DriveFacts:
    """What the drive said of itself at one moment (before or after a step), each fact from the source
    named in `source` (smartctl, hwmon, sysfs: labtui.machine.drive). None: the drive did not say."""

    source: str  # what answered: "smartctl", "smartctl + sysfs", "hwmon + sysfs", "sysfs"
    temperature_c: float | None = None
    warning_c: float | None = None  # the drive's warning (NVMe WCTEMP, hwmon temp1_max) threshold
    critical_c: float | None = None  # its critical threshold (NVMe CCTEMP, hwmon temp1_crit)
    critical_warning: str | None = None  # the drive's critical warning in words ("spare below threshold"); None: none
    health_passed: bool | None = None  # smartctl's overall self-assessment
    percentage_used: int | None = None
    available_spare: int | None = None
    media_errors: int | None = None  # NVMe media and data integrity errors; ATA reallocated + pending + uncorrectable
    error_log_entries: int | None = None
    unsafe_shutdowns: int | None = None
    data_written_bytes: int | None = None
    warning_temp_minutes: int | None = None  # NVMe: minutes above the warning threshold, ever
    critical_temp_minutes: int | None = None
    thermal_transitions: int | None = None  # NVMe thermal-management transitions (TMT1 + TMT2), ever
    thermal_seconds: int | None = None  # seconds in thermal management (TMT1 + TMT2), ever
    pcie_speed: str | None = None  # the PCIe link now: "8.0 GT/s PCIe"
    pcie_width: int | None = None
    aer_correctable: int | None = None  # PCIe AER counters (TOTAL_ERR_*) of the drive's function
    aer_nonfatal: int | None = None
    aer_fatal: int | None = None
    port_aer_correctable: int | None = None  # and of the port above it (the slot the adapter sits in)
    port_aer_nonfatal: int | None = None
    port_aer_fatal: int | None = None

    def __post_init__(self) -> None:
        _temperatures_only(self, "temperature_c", "warning_c", "critical_c")

    @property
    def aer_total(self) -> int | None:
        counts = [c for c in (self.aer_correctable, self.aer_nonfatal, self.aer_fatal, self.port_aer_correctable,
                              self.port_aer_nonfatal, self.port_aer_fatal) if c is not None]
        return sum(counts) if counts else None


@dataclass(frozen=True)
class DriveReading:
    """A light reading of the drive during a step: temperature and link only (what a few-second sample
    may ask of a drive without heating it), with the thermal count where smartctl gives it."""

    source: str
    temperature_c: float | None = None
    warning_c: float | None = None
    pcie_speed: str | None = None
    pcie_width: int | None = None
    thermal_transitions: int | None = None

    def __post_init__(self) -> None:
        _temperatures_only(self, "temperature_c", "warning_c")

    @property
    def link_gts(self) -> float | None:
        return gts(self.pcie_speed)


def gts(speed: str | None) -> float | None:
    """"8.0 GT/s PCIe" as 8.0; None where it does not say."""
    head = (speed or "").split(" ")[0]
    try:
        return float(head)
    except ValueError:
        return None


@dataclass(frozen=True)
class Drop:
    """A sustained fall of a step's per-interval throughput (labtui.analysis.drops says the rule),
    with what the drive and the machine said around it."""

    t: float  # seconds into the measured phase where the lower level began (the change point)
    bytes_before: int  # bytes the step moved before it
    before_mib_s: float  # the level before and after, MiB/s
    after_mib_s: float
    cause: str  # thermal, write cache full, link, CPU, other I/O, unexplained
    evidence: str = ""  # what says so, in plain words
    recovered_t: float | None = None  # where the throughput came back to the earlier level (None: it did not)

    @property
    def fall_pct(self) -> float:
        return (1 - self.after_mib_s / self.before_mib_s) * 100 if self.before_mib_s > 0 else 0.0


@dataclass(frozen=True)
class StepResult:
    step: Step
    status: str = "completed"
    read: DirectionStats = DirectionStats()
    write: DirectionStats = DirectionStats()
    latency: LatencySummary = LatencySummary()
    read_latency: LatencySummary = LatencySummary()
    write_latency: LatencySummary = LatencySummary()
    cpu_percent: float | None = None  # whole-machine CPU use during the measured phase
    cpu_seconds: float | None = None  # CPU time the engine itself spent in the measured phase
    # The busiest worker's CPU use over the measured phase, in % of one CPU, and why the step
    # was CPU-bound (its figure is the engine's limit, not the disk's); None = it was not.
    engine_cpu_percent: float | None = None
    engine_bound: str | None = None
    backend: str | None = None  # how the engine issued the I/O (native: io_uring, aio, sync, threads)
    processes: int | None = None  # the OS processes that carried the step's threads (native); None: not known
    repetition: int = 1
    command_line: str | None = None  # the exact engine invocation (or native settings) for this step
    error: str | None = None
    # kind = "command"
    wall_seconds: float | None = None
    exit_status: int | None = None
    output_tail: str | None = None
    samples: tuple[Sample, ...] = ()
    # Each stored interval merges up to this many measured ones (the series was longer than a
    # result file keeps: labtui.series); None when every interval is kept as measured.
    series_merged: int | None = None
    steady_state: SteadyState | None = None  # a step run to steady state (None for a plain timed step)
    # The drive before and after the step (labtui.machine.drive), and the drops its interval series
    # showed (labtui.analysis.drops); None / () where nothing was read or nothing fell.
    drive_before: DriveFacts | None = None
    drive_after: DriveFacts | None = None
    drops: tuple[Drop, ...] = ()
    verify: Verification | None = None  # a verified step's checks of the blocks it read (None: not verified)

    @property
    def total(self) -> DirectionStats:
        return self.read + self.write

    @property
    def has_figures(self) -> bool:
        """Whether the step measured anything: it completed, or moved some I/O before it stopped. A step
        that failed before any I/O (an imported fio job that never started) has no figure, so every
        view shows "-" and its status, never "0.0 IOPS"."""
        return self.status == "completed" or self.total.ios > 0 or self.total.bytes > 0

    @property
    def name(self) -> str:
        return self.step.name

    @property
    def peak_mib_s(self) -> float | None:
        """The busiest interval's MiB/s (both directions): its bytes over its seconds; None without samples.

        An interval shorter than half the typical (median) one is taken together with the one
        before it (the first, with the one after): the last one of a command step ends when the
        command does and may be a few milliseconds long, too short to mean much alone. Merged, not
        left out: a command whose flush wrote most of its bytes in that last sliver had a peak
        below its mean. So every byte is in some interval, and the peak is never below the mean
        of the same samples. The median, not the longest, sets the bar, so one interval stretched
        by a busy machine does not disqualify all the others.
        """
        if not self.samples:
            return None
        lengths = sorted(s.seconds for s in self.samples)
        typical = lengths[len(lengths) // 2]
        spans: list[list[float]] = []  # [bytes, seconds] of each interval, short ones merged
        carry = [0.0, 0.0]  # short leading intervals, for the first full one
        for s in self.samples:
            here = [carry[0] + s.read_bytes + s.write_bytes, carry[1] + s.seconds]
            carry = [0.0, 0.0]
            if here[1] >= typical / 2:
                spans.append(here)
            elif spans:
                spans[-1][0] += here[0]
                spans[-1][1] += here[1]
            else:
                carry = here
        return max((b / t / MIB for b, t in spans if t > 0), default=None)


def window_figure(result: StepResult, figure: str) -> float | None:
    """A steady-state step's window figure, from the window's counts (which are the step's): IOPS or
    MiB/s as its I/Os or bytes over its seconds, latency as its mean weighted by I/Os."""
    total = result.total
    if figure == "latency":
        return result.latency.mean
    if total.seconds <= 0:
        return None
    return total.ios / total.seconds if figure == "iops" else total.bytes / total.seconds / MIB


def settled(result: StepResult) -> StepResult:
    """A steady-state step's result once its window is its figures: its state's `mean` made the step's
    own figure (every engine ends a steady-state step through here)."""
    state = result.steady_state
    if state is None or state.window_start is None:
        return result
    return replace(result, steady_state=replace(state, mean=window_figure(result, state.figure)))


@dataclass(frozen=True)
class Preparation:
    """The test file's writing before the steps: what was written and how long it took (flush included)."""

    bytes: int = 0
    seconds: float = 0.0
    direct: bool | None = None  # written with O_DIRECT

    @property
    def mib_s(self) -> float:
        return self.bytes / self.seconds / MIB if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Precondition:
    """The sequential fill of the test file (or device) before the steps, SNIA's preconditioning."""

    passes: int
    bytes: int = 0  # written in all passes
    seconds: float = 0.0
    pass_seconds: tuple[float, ...] = ()  # each pass's time: a later pass slower than the first shows the drive's cache filling
    direct: bool | None = None  # written with O_DIRECT

    @property
    def mib_s(self) -> float:
        return self.bytes / self.seconds / MIB if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class RunResult:
    id: str
    status: str
    started: datetime
    ended: datetime
    host: HostInfo
    target: TargetInfo
    engine: EngineInfo
    profile: Profile
    steps: tuple[StepResult, ...] = ()
    tags: tuple[str, ...] = ()
    source: str = "run"  # "run" or "import"
    source_file: str | None = None  # the imported file's name
    source_digest: str | None = None  # "sha256:<hex>" of the imported file: the same file imports once
    error: str | None = None  # why a run failed or was aborted
    warnings: tuple[str, ...] = ()
    params: dict[str, str] = field(default_factory=dict)  # the profile parameters' values in this run
    preparation: Preparation | None = None  # the test file's writing (None: no file was written)
    precondition: Precondition | None = None  # the profile's sequential passes before the steps
    schema: int = SCHEMA

    def read_back(self) -> ReadBack | None:
        """What its verified steps found, together (None: it verified nothing)."""
        # A verified write step keeps no checks (it read nothing back): whether the run wrote is its profile's.
        wrote = any(s.step.verify and s.step.writes for s in self.steps)
        return ReadBack.of([(s.name, s.verify, s.step.writes) for s in self.steps if s.verify is not None], wrote)

    @property
    def seconds(self) -> float:
        return (self.ended - self.started).total_seconds()


def step_pass(step_name: str, repetition: int) -> str:
    """A step's pass as the run's messages name it: 'Read 4K' (repetition 2), 'Read 4K' (its preparing
    pass, not counted), or just 'Read 4K' for a step's first (or only) pass."""
    return f"{step_name!r}" + (f" (repetition {repetition})" if repetition > 1 else
                               " (its preparing pass, not counted)" if repetition == 0 else "")


def new_result_id(started: datetime | None = None) -> str:
    """A sortable, unique-enough id: the start time plus random hex (the store enforces unique)."""
    started = started or datetime.now(UTC)
    return started.astimezone(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def now() -> datetime:
    """The current time, timezone-aware and rounded to the microsecond TOML keeps."""
    return datetime.now(UTC)


# --------------------------------------------------------------------------- identity


def disk_identity(target: TargetInfo, host_name: str | None) -> str:
    """A stable name for the disk under a target: model and serial, else model, disk and host."""
    if target.model and target.serial:
        return f"{target.model} #{target.serial}"
    host = host_name or "unknown host"
    if target.model:
        return f"{target.model} ({target.disk or target.device or 'unknown device'}) on {host}"
    where = target.mount_point or target.path
    return f"{target.filesystem or 'unknown file system'} at {where} on {host}"


def result_disk(result: RunResult) -> str:
    return disk_identity(result.target, result.host.name)


def split_tags(text: str) -> list[str]:
    """Tags as people type them, comma-separated (the TUI's fields, each --tag): stripped, the empty
    ones and repeats left out."""
    return list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def tag_problem(tag: str) -> str | None:
    """Why `tag` cannot be one (a control character: a newline breaks every list it is shown in), or None."""
    bad = next((c for c in tag if not c.isprintable()), None)
    return None if bad is None else f"{tag!r} is not a tag: it holds the control character {bad!r}"
