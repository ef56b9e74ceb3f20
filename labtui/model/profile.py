"""What to run: workload steps and profiles with their rules, and the limits every editor and loader checks.

Plain dataclasses shared by the engine, the store, the CLI and the TUI. Profiles and steps are
validated here, once, with the rules every editor and loader uses. Their file is a format of its
own (labtui.results.profile_file). What a run measured is result.py's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from labtui.errors import ValidationError
from labtui.params import BUILTIN_NAMES, SHELL_FIELDS, TEMPLATE_FIELDS, Param, check_template
from labtui.units import format_duration, format_size, human_size

SCHEMA = 1
MIB = 1024 * 1024

PATTERNS = ("random", "sequential")
CACHE_MODES = ("off", "on")
STEP_KINDS = ("io", "command")
STATUSES = ("completed", "aborted", "failed")

# What an I/O step takes beyond its warm-up, measured time and cool-down: the engine's workers
# started and the test file opened, then stopped and their counts collected. Measured on 2 CPUs
# (benchmarks/step_startup.py): native 0.15 s a step on a quiet machine and 0.25-0.5 s on a busy
# one, fio 0.35-0.45 s. The live ETA puts what the run's own finished steps took in its place.
STEP_STARTUP_SECONDS = 0.4

# Upper bounds that catch typos ("threads = 800") before they fork hundreds of workers.
MAX_THREADS = 256
MAX_OUTSTANDING = 1024
NATIVE_WORKERS = ("", "auto", "per-thread")  # Step.native_workers ("": config.toml's)
MAX_REPEAT = 100
MAX_PAUSE = 3600.0

# The live sample interval (`--interval`, a fleet request's "interval"): what every engine takes.
# The native engine and command steps sample at most every 100 ms (a shorter interval was quietly
# sampled at 100 ms) and a window under 0.1 s gets no CPU figures; fio would take down to 1 ms
# ("status interval too small" below), a JSON report every millisecond to parse beside the run.
# At most an hour, and never longer than a step lasts: beyond it the step has no live sample
# before its end (fio's --status-interval=1000h is taken, and never reports).
DEFAULT_INTERVAL = 1.0
MIN_INTERVAL = 0.1
MAX_INTERVAL = 3600.0
# The shortest I/O step (or steady-state round): one live sample interval. Below it no engine gives
# a live sample, the CPU figures are not given (cpubound.MIN_SECONDS), fio's and the native engine's
# start-up and stop (tens of ms) are most of the window, and a 0.5 ms write step "completed" with
# 0 I/Os shown as a 0.0 IOPS figure. Refused as the step is made (CLI, profile file, Run screen).
MIN_STEP_SECONDS = MIN_INTERVAL

# How a figure is made of a step's repetitions (the profile's `aggregate`): "mean" is their
# average (KDiskMark, fio's loops), "best" the highest throughput and lowest latency of the
# passes, each figure on its own (CrystalDiskMark). Statistics always use every repetition.
AGGREGATES = ("mean", "best")
# The profile's `repeat_order`: "profile" runs the whole profile `repeat` times over; "step" runs
# each step `repeat` times in a row before the next (CrystalDiskMark, KDiskMark).
REPEAT_ORDERS = ("profile", "step")
SECTOR = 512
VERIFY_UNIT = 4096  # a verified block carries a header every 4 KiB (labtui.engine.verify.UNIT)

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


# --------------------------------------------------------------------------- steady state

STEADY_WINDOW = 5  # SNIA PTS 2.0: the measurement window is the last 5 rounds
STEADY_MAX_ROUNDS = 25  # SNIA PTS 2.0: a test that is not steady after 25 rounds says so and stops
MAX_STEADY_ROUNDS = 1000
MAX_PRECONDITION = 10  # sequential passes over the test file before the steps
STEADY_FIGURES = ("iops", "mib_s", "latency")  # what a rule tracks: IOPS, MiB/s, mean latency (ms)
SNIA_RANGE_PERCENT = 20.0  # the window's max - min, in % of its mean, at most
SNIA_EXCURSION_PERCENT = 10.0  # the best-fit line's rise or fall over the window, in % of its mean, at most
# fio's single criteria (its `steadystate=` option), each with the figure it tracks and its test:
# "deviation" = every round within the limit of the window's mean, "slope" = the least-squares
# slope per round within the limit. fio has no latency criteria: lat and lat_slope apply fio's
# two tests to the mean latency.
FIO_CRITERIA = {
    "iops": ("iops", "deviation"),
    "iops_slope": ("iops", "slope"),
    "bw": ("mib_s", "deviation"),
    "bw_slope": ("mib_s", "slope"),
    "lat": ("latency", "deviation"),
    "lat_slope": ("latency", "slope"),
}
_RULE_HELP = ("'snia' (or 'snia:mib_s', 'snia:latency') or a fio criterion with its limit such as "
              "'iops_slope:0.1%' or 'bw:5%' (iops, iops_slope, bw, bw_slope, lat, lat_slope)")


@dataclass(frozen=True)
class SteadyRule:
    """When a step is steady: SNIA PTS 2.0's rule ("snia") or one of fio's criteria, as fio means it.

    A fio limit is in % of the window's mean, or without "%" in the figure's own unit as fio's:
    IOPS, bytes/s for bw (fio counts bandwidth in bytes/s), milliseconds for lat.
    """

    name: str  # "snia" or a key of FIO_CRITERIA
    figure: str  # one of STEADY_FIGURES
    limit: float = 0.0  # a fio criterion's threshold
    percent: bool = True
    window: int = STEADY_WINDOW
    max_rounds: int = STEADY_MAX_ROUNDS

    @property
    def snia(self) -> bool:
        return self.name == "snia"

    @property
    def test(self) -> str:
        """"snia", "deviation" or "slope"."""
        return "snia" if self.snia else FIO_CRITERIA[self.name][1]

    def figure_of(self, ios: int, nbytes: int, seconds: float, latency_ms: float | None) -> float | None:
        """A round's tracked figure from its exact counts; None where it cannot be told."""
        if self.figure == "latency":
            return latency_ms
        if seconds <= 0:
            return None
        return ios / seconds if self.figure == "iops" else nbytes / seconds / MIB

    @property
    def text(self) -> str:
        """The rule as a step's `steady_state` spells it."""
        if self.snia:
            return "snia" if self.figure == "iops" else f"snia:{self.figure}"
        return f"{self.name}:{self.limit:.15g}{'%' if self.percent else ''}"

    @classmethod
    def parse(cls, text: str, *, window: int = STEADY_WINDOW, max_rounds: int = STEADY_MAX_ROUNDS,
              where: str = "step") -> SteadyRule:
        field_ = f"{where}.steady_state"
        name, _, arg = str(text).strip().lower().partition(":")
        name, arg = name.strip(), arg.strip()
        if name == "snia":
            figure = arg or "iops"
            if figure not in STEADY_FIGURES:
                raise ValidationError(f"SNIA's rule tracks iops, mib_s or latency, got {figure!r}", field_)
            if window != STEADY_WINDOW:
                raise ValidationError(f"SNIA's rule judges a window of {STEADY_WINDOW} rounds, not {window} "
                                      "(a fio criterion such as 'iops_slope:1%' takes any window)",
                                      f"{where}.steady_window")
            rule = cls("snia", figure, window=window, max_rounds=max_rounds)
        elif name in FIO_CRITERIA:
            number = arg.removesuffix("%").strip()
            try:
                limit = float(number)
            except ValueError:
                example = "2" if name == "iops" else "0.5%"
                raise ValidationError(f"{name} needs a limit such as '{name}:1%' or '{name}:{example}', got {text!r}",
                                      field_) from None
            if not math.isfinite(limit) or limit < 0:
                raise ValidationError(f"the limit must be a number of 0 or more, got {arg!r}", field_)
            rule = cls(name, FIO_CRITERIA[name][0], limit, arg.endswith("%"), window, max_rounds)
        else:
            raise ValidationError(f"steady_state must be {_RULE_HELP}, got {text!r}", field_)
        if not 2 <= window <= MAX_STEADY_ROUNDS:
            raise ValidationError(f"the window must be 2..{MAX_STEADY_ROUNDS} rounds, got {window}", f"{where}.steady_window")
        if not window <= max_rounds <= MAX_STEADY_ROUNDS:
            raise ValidationError(f"at most {window}..{MAX_STEADY_ROUNDS} rounds (at least the window), got {max_rounds}",
                                  f"{where}.steady_max_rounds")
        return rule


# --------------------------------------------------------------------------- workload


@dataclass(frozen=True)
class Step:
    """One workload step. Sizes in bytes, times in seconds."""

    name: str
    kind: str = "io"
    block_size: int = 64 * 1024
    pattern: str = "random"
    write_percent: int = 0
    threads: int = 1
    outstanding: int = 1
    duration: float = 10.0
    warmup: float = 2.0
    cooldown: float = 0.0
    cache: str = "off"
    latency: bool = True
    # Writes go through the drive's volatile write cache to the media before they complete (O_DSYNC,
    # fio sync=dsync, DiskSpd -Sh / -Sw); off, they complete once the drive has them (DiskSpd -Su,
    # CrystalDiskMark's -S). The post's script asks for it (-h), CrystalDiskMark does not.
    write_through: bool = False
    # Idle seconds before each pass of this step (None: the profile's `pause`); never counted.
    pause: float | None = None
    # kind = "command": time a shell command instead of generating I/O.
    command: str = ""  # run with /bin/sh -c; {name} placeholders (labtui.params)
    workdir: str = ""  # where it runs; relative to the target directory, which is the default
    setup: str = ""  # run before, untimed; its failure fails the step
    cleanup: str = ""  # run after, untimed, whatever happened
    timeout: float = 3600.0  # the command is stopped (its whole process group) past this
    drop_caches: bool = False  # drop the page cache before the command (needs root)
    sync: bool = True  # flush the file systems when the command ends, inside the timed window
    requires: tuple[str, ...] = ()  # programs that must be installed (checked before the run)
    # Run to steady state (SteadyRule): `duration` is then one round's length, `warmup` comes
    # before the first round; "" = a plain timed step.
    steady_state: str = ""
    steady_window: int = STEADY_WINDOW  # rounds in the measurement window
    steady_max_rounds: int = STEADY_MAX_ROUNDS  # the step stops here, steady or not
    # How the native engine carries the step's threads (labtui.engine.native.plan): "auto", at most
    # one process per CPU, each driving several threads' I/Os; "per-thread", one process per thread
    # (DiskSpd's shape); "" = config.toml's native_workers. What the device sees is the same.
    native_workers: str = ""
    # Every block written carries a header (the run, its offset, the write's number, a checksum) and
    # every block read is checked against it (labtui.engine.verify; fio's verify= with -e fio); a
    # block that does not read back as written fails the step. Needs whole 4 KiB blocks.
    verify: bool = False

    @property
    def is_io(self) -> bool:
        return self.kind == "io"

    @property
    def steady(self) -> SteadyRule | None:
        """The steady-state rule this step runs to, or None (a plain timed step)."""
        if not self.is_io or not self.steady_state:
            return None
        return SteadyRule.parse(self.steady_state, window=self.steady_window, max_rounds=self.steady_max_rounds)

    @property
    def planned_seconds(self) -> float:
        """Warm-up and measured time (every round a steady-state step may take: an upper bound)."""
        if not self.is_io:
            return 0.0
        rounds = self.steady_max_rounds if self.steady_state else 1
        return self.warmup + self.duration * rounds

    @property
    def reads(self) -> bool:
        return self.is_io and self.write_percent < 100

    @property
    def writes(self) -> bool:
        return self.is_io and self.write_percent > 0

    @property
    def queue_depth(self) -> int:
        """I/Os in flight across all threads."""
        return self.threads * self.outstanding

    def workload_key(self) -> tuple:
        """What makes two steps the same workload, whatever they are called or where they sit."""
        if self.kind == "command":
            return ("command", self.command.strip())
        return (
            "io",
            self.block_size,
            self.pattern,
            self.write_percent,
            self.threads,
            self.outstanding,
            self.cache,
        ) + (("write-through",) if self.write_through and self.writes else ()) + (("verify",) if self.verify else ())

    def label(self) -> str:
        """A CrystalDiskMark-style short label: "RND64K Q8T8 R", "SEQ1M Q8T1 W70"."""
        if self.kind == "command":
            return "CMD " + (self.command.split()[0] if self.command.split() else "")
        size = format_size(self.block_size).replace("iB", "")
        kind = "RND" if self.pattern == "random" else "SEQ"
        mix = {0: "R", 100: "W"}.get(self.write_percent, f"W{self.write_percent}")
        return f"{kind}{size} Q{self.outstanding}T{self.threads} {mix}"

    def validate(self, where: str = "step", file_size: int | None = None) -> None:
        """Raise ValidationError naming the first field that breaks the model's rules."""
        if not self.name.strip():
            raise ValidationError("every step needs a non-empty name", f"{where}.name")
        if self.kind not in STEP_KINDS:
            raise ValidationError(f"kind must be one of {', '.join(STEP_KINDS)}", f"{where}.kind")
        for key in ("warmup", "cooldown"):
            if getattr(self, key) < 0:
                raise ValidationError(f"{key} cannot be negative", f"{where}.{key}")
        if self.pause is not None and not 0 <= self.pause <= MAX_PAUSE:
            raise ValidationError(f"the pause must be 0 to {format_duration(MAX_PAUSE)}, got {self.pause:g} s",
                                  f"{where}.pause")
        if self.kind == "command":
            if not self.command.strip():
                raise ValidationError("a command step needs a command", f"{where}.command")
            if self.timeout <= 0:
                raise ValidationError("the time limit must be greater than zero", f"{where}.timeout")
            for program in self.requires:
                if not program.strip() or any(c.isspace() for c in program):
                    raise ValidationError(f"{program!r} is not a program name", f"{where}.requires")
            return
        if self.pattern not in PATTERNS:
            raise ValidationError(f"pattern must be random or sequential, got {self.pattern!r}", f"{where}.pattern")
        if self.cache not in CACHE_MODES:
            raise ValidationError(f"cache must be off or on, got {self.cache!r}", f"{where}.cache")
        if not 0 <= self.write_percent <= 100:
            raise ValidationError(f"write percent must be within 0..100, got {self.write_percent}", f"{where}.write_percent")
        if not 1 <= self.threads <= MAX_THREADS:
            raise ValidationError(f"threads must be 1..{MAX_THREADS}, got {self.threads}", f"{where}.threads")
        if not 1 <= self.outstanding <= MAX_OUTSTANDING:
            raise ValidationError(
                f"outstanding I/Os per thread must be 1..{MAX_OUTSTANDING}, got {self.outstanding}",
                f"{where}.outstanding",
            )
        if self.block_size <= 0:
            raise ValidationError("block size must be greater than zero", f"{where}.block_size")
        if self.cache == "off" and self.block_size % SECTOR:
            raise ValidationError(
                f"with cache off the block size must be a multiple of {SECTOR} bytes, got {self.block_size}",
                f"{where}.block_size",
            )
        if not self.duration >= MIN_STEP_SECONDS:
            raise ValidationError(f"a step must last at least {format_duration(MIN_STEP_SECONDS)} (shorter is too short "
                                  f"to measure), got {format_duration(self.duration)}", f"{where}.duration")
        if self.verify and self.block_size % VERIFY_UNIT:
            raise ValidationError(f"a verified step needs blocks of whole {format_size(VERIFY_UNIT)} (each carries "
                                  f"its header), got {format_size(self.block_size)}", f"{where}.block_size")
        if self.verify and 0 < self.write_percent < 100:
            raise ValidationError("a verified step reads or writes, not both (a read could meet a write of the same "
                                  "block in flight): make a write step and a read step", f"{where}.write_percent")
        if self.verify and self.cache == "on":
            raise ValidationError("a verified step needs cache = off: with the page cache on it would check the "
                                  "memory's copy, not what the disk gives back", f"{where}.cache")
        if self.native_workers not in NATIVE_WORKERS:
            raise ValidationError(f"native_workers must be auto or per-thread, got {self.native_workers!r}",
                                  f"{where}.native_workers")
        if self.steady_state:
            rule = SteadyRule.parse(self.steady_state, window=self.steady_window, max_rounds=self.steady_max_rounds,
                                    where=where)
            if rule.figure == "latency" and not self.latency:
                raise ValidationError("tracking latency to steady state needs latency = true", f"{where}.latency")
        if file_size is not None and file_size < self.block_size:
            raise ValidationError(
                f"the test file ({format_size(file_size)}) is smaller than one block ({format_size(self.block_size)})",
                "file_size",
            )


# The origin of a profile read back from a result (what ran then, not a profile file); the TUI
# adds ":<result id>" when it runs such a profile again.
RESULT_ORIGIN = "result"
# The end of the title of a profile run with --duration, --file-size or --repeat.
OVERRIDDEN = ", overridden"


@dataclass(frozen=True)
class Profile:
    """A named sequence of steps run against one test file."""

    name: str
    title: str = ""
    description: str = ""
    file_size: int = 1024**3
    free_space_margin: int = 1024**3
    repeat: int = 1
    steps: tuple[Step, ...] = ()
    # How repetitions are run and reported (CrystalDiskMark and KDiskMark presets need them):
    aggregate: str = "mean"  # the figure of a step's repetitions: AGGREGATES
    repeat_order: str = "profile"  # REPEAT_ORDERS
    discard_first: bool = False  # each step's first pass prepares the drive and is not counted
    pause: float = 0.0  # idle seconds before every pass but the run's first (a step's own `pause` wins)
    decimal_units: bool = False  # also show MB/s (10^6 bytes per second), as CrystalDiskMark does
    # Sequential passes over the whole test file (or device) before the steps: SNIA's
    # preconditioning (it asks for 2, twice the capacity). 0 = none.
    precondition: int = 0
    # Values the person supplies at run time (`--param name=value`), used as {name} in command steps.
    params: tuple[Param, ...] = ()
    # Where it came from: "builtin", "user" or a file path. Not part of the file's contents.
    origin: str = field(default="user", compare=False)

    @property
    def overridden(self) -> bool:
        """Run with --duration, --file-size or --repeat: its description says how (with_overrides)."""
        return self.title.endswith(OVERRIDDEN)

    @property
    def shown_name(self) -> str:
        """'quick-sanity', or 'quick-sanity (overridden)' where it did not run as its file says."""
        return f"{self.name} (overridden)" if self.overridden else self.name

    @property
    def io_steps(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.is_io)

    def interval_problem(self, seconds: float, given: str | None = None) -> str | None:
        """Why a live sample every `seconds` (typed as `given`) does not fit this profile's steps and
        the engines, or None.

        The range is 100 ms to an hour, and at most the shortest step: an I/O step's duration (a
        steady-state step's round), a command step's time limit.
        """
        ceiling, why = MAX_INTERVAL, ""
        for step in self.steps:
            length = step.duration if step.is_io else step.timeout
            if length < ceiling:
                what = ("lasts" if not step.steady_state else "has rounds of") if step.is_io else "may take at most"
                ceiling, why = length, f"step {step.name!r} {what} {format_duration(length)}"
        got = f"got {given or format_duration(seconds)!r}"
        if ceiling < MIN_INTERVAL:
            return (f"{got}, but {why}: no interval fits, the engines sample at most every "
                    f"{format_duration(MIN_INTERVAL)} (leave it out)")
        if MIN_INTERVAL <= seconds <= ceiling:
            return None
        return f"must be from {format_duration(MIN_INTERVAL)} to {format_duration(ceiling)}, {got}" + (
            f" ({why})" if why else "")

    @property
    def writes(self) -> bool:
        """Whether a run writes to its target: a step that writes, or preconditioning."""
        return self.precondition > 0 or any(s.writes for s in self.steps)

    @property
    def needs_test_file(self) -> bool:
        return any(s.is_io for s in self.steps)

    @property
    def space_needed(self) -> int:
        """Free bytes a run needs on its target: the test file (if any step does I/O) plus the margin."""
        return self.free_space_margin + (self.file_size if self.needs_test_file else 0)

    def space_shortfall(self, free_bytes: int) -> str | None:
        """Why `free_bytes` cannot hold a run of this profile, or None: the one rule the runner's
        preflight refuses a run by and the Disks and Workload screens warn by."""
        if free_bytes >= self.space_needed:
            return None
        # Sizes said one way in one sentence: human_size, as the total and the free space ("needs 999 TiB
        # (test file 999 TiB + ..."), not the profile's own spelling next to it ("999TiB").
        parts = f"margin {human_size(self.free_space_margin)}"
        if self.needs_test_file:
            parts = f"test file {human_size(self.file_size)} + {parts}"
        return f"{self.name} needs {human_size(self.space_needed)} ({parts}), only {human_size(free_bytes)} is free"

    @property
    def bypasses_cache(self) -> bool:
        """Whether any I/O step runs with the page cache off (and so needs a real disk under it)."""
        return any(s.is_io and s.cache == "off" for s in self.steps)

    def pause_before(self, step: Step) -> float:
        """The idle time before a pass of `step` (none before the run's first pass)."""
        return self.pause if step.pause is None else step.pause

    def passes(self) -> list[tuple[int, Step, int]]:
        """Every pass the run makes, in order: (step index, step, repetition); repetition 0 is a
        discarded preparing pass (`discard_first`), measured but never counted."""
        order: list[tuple[int, Step, int]] = []
        if self.repeat_order == "step":
            for i, step in enumerate(self.steps):
                if self.discard_first:
                    order.append((i, step, 0))
                order += [(i, step, rep) for rep in range(1, self.repeat + 1)]
            return order
        for rep in range(1, self.repeat + 1):
            for i, step in enumerate(self.steps):
                if self.discard_first and rep == 1:
                    order.append((i, step, 0))
                order.append((i, step, rep))
        return order

    @property
    def passes_per_step(self) -> int:
        """Passes run of each step, the discarded one included."""
        return self.repeat + (1 if self.discard_first else 0)

    def aggregation_text(self, n: int | None = None) -> str:
        """How a step's figure is made of its `n` passes, for every output: "best of 3 (max throughput,
        min latency; 1 preparing pass not counted)", "mean of 3", "single run"."""
        n = self.repeat if n is None else n
        prep = "; 1 preparing pass not counted" if self.discard_first else ""
        if n <= 1:
            return f"single run{' (' + prep[2:] + ')' if prep else ''}"
        if self.aggregate == "best":
            return f"best of {n} (max throughput, min latency{prep})"
        return f"mean of {n}" + (f" ({prep[2:]})" if prep else "")

    @property
    def planned_seconds(self) -> float:
        """How long the steps take: warm-ups, cool-downs, pauses and each I/O step's start-up
        included (STEP_STARTUP_SECONDS), not the file preparation."""
        total = 0.0
        for n, (_i, step, _rep) in enumerate(self.passes()):
            # A command takes as long as it takes: only its cool-down is known in advance.
            run = step.planned_seconds + STEP_STARTUP_SECONDS if step.is_io else 0.0
            total += run + step.cooldown + (self.pause_before(step) if n else 0.0)
        return total

    def validate(self) -> None:
        if not _NAME_RE.match(self.name) or len(self.name) > 80:
            raise ValidationError(
                f"{self.name!r} is not a usable name (letters, digits, '.', '_' and '-', at most 80)", "name"
            )
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise ValidationError(f"must be from 1 to {MAX_REPEAT}, got {self.repeat}", "repeat")
        if self.aggregate not in AGGREGATES:
            raise ValidationError(f"must be {' or '.join(AGGREGATES)}, got {self.aggregate!r}", "aggregate")
        if self.repeat_order not in REPEAT_ORDERS:
            raise ValidationError(f"must be {' or '.join(REPEAT_ORDERS)}, got {self.repeat_order!r}", "repeat_order")
        if not 0 <= self.pause <= MAX_PAUSE:
            raise ValidationError(f"must be 0 to {format_duration(MAX_PAUSE)}, got {self.pause:g} s", "pause")
        if self.file_size <= 0:
            raise ValidationError("the test file size must be greater than zero", "file_size")
        if not 0 <= self.precondition <= MAX_PRECONDITION:
            raise ValidationError(f"must be from 0 to {MAX_PRECONDITION} passes, got {self.precondition}", "precondition")
        if self.precondition and not self.needs_test_file:
            raise ValidationError("there is nothing to precondition: no step does I/O", "precondition")
        if self.free_space_margin < 0:
            raise ValidationError("the free-space margin cannot be negative", "free_space_margin")
        if not self.steps:
            raise ValidationError("the profile needs at least one step", "steps")
        for i, step in enumerate(self.steps):
            step.validate(f"steps[{i + 1}]", self.file_size if step.is_io else None)
        self._validate_params()

    def _validate_params(self) -> None:
        """Every placeholder is declared (or built in), and every declared parameter is used."""
        names = [p.name for p in self.params]
        for param in self.params:
            param.validate()
            if names.count(param.name) > 1:
                raise ValidationError("declared twice", f"params.{param.name}")
        used: set[str] = set()
        for i, step in enumerate(self.steps):
            if step.is_io:
                continue
            for key in TEMPLATE_FIELDS:
                used |= check_template(getattr(step, key), (*names, *BUILTIN_NAMES), f"steps[{i + 1}].{key}",
                                       shell=key in SHELL_FIELDS, step=step.name)
        for name in names:
            if name not in used:
                raise ValidationError(f"no step uses {{{name}}} (a typo in a step?)", f"params.{name}")

    def with_overrides(
        self, *, duration: float | None = None, file_size: int | None = None, repeat: int | None = None,
        where: str = "on the command line",
    ) -> Profile:
        """The quick-trial variant the CLI's --duration / --file-size / --repeat ask for (the Run
        screen's Override fields too: `where` they were given, for the description).

        It keeps the name (it is that profile, overridden: compared and baselined as such), and says
        so in its title and description, which describe what runs: the profile's own description
        ("10 s each on a 1 GiB file") would be false of a 1 s trial on 64 MiB.
        """
        steps = self.steps
        edits = []
        if duration is not None:
            steps = tuple(replace(s, duration=duration) if s.is_io else s for s in steps)
            was = sorted({s.duration for s in self.steps if s.is_io and s.duration != duration})
            if was:
                each = "every step" if len({s.duration for s in self.io_steps}) == 1 else "every I/O step"
                # A steady-state step's duration is one round's length: say so, or "1s" reads as the step's.
                rounds = (", a round's length where a step runs to steady state"
                          if any(s.steady_state for s in self.io_steps) else "")
                edits.append(f"duration {format_duration(duration)} in {each}{rounds} "
                             f"(was {', '.join(format_duration(d) for d in was)})")
        if file_size is not None and file_size != self.file_size:
            edits.append(f"test file {format_size(file_size)} (was {format_size(self.file_size)})")
        if repeat is not None and repeat != self.repeat:
            edits.append(f"every step run {repeat} time{'s' if repeat != 1 else ''} (was {self.repeat})")
        profile = replace(
            self,
            steps=steps,
            file_size=self.file_size if file_size is None else file_size,
            repeat=self.repeat if repeat is None else repeat,
        )
        profile.validate()
        if not edits:
            return profile
        title = self.title or self.name
        return replace(
            profile,
            title=title if title.endswith(OVERRIDDEN) else title + OVERRIDDEN,
            description=f"{self.name} overridden {where}: {', '.join(edits)}",
        )


def override_refused(field: str, *, duration: float | None, file_size: int | None,
                     repeat: int | None) -> str | None:
    """Which of the overrides given ("duration", "file_size", "repeat") broke the rule a refusal of
    `with_overrides` names by its profile `field`; None where the profile's own rule was broken.
    The CLI names it by its flag, the Run screen by its field."""
    if field == "repeat" and repeat is not None:
        return "repeat"
    if field == "file_size" and file_size is not None:
        return "file_size"
    if field.endswith(".duration") and duration is not None:
        return "duration"
    return None
