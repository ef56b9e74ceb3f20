"""The data model: workload steps, profiles, targets, run and step results, samples.

Plain dataclasses shared by the engine, the store, the CLI and the TUI. Profiles and steps are
validated here, once, with the rules every editor and loader uses; results hold exact counts
(I/Os, bytes, measured seconds) from which every rate is derived. Their files are formats of their
own: a profile's in labtui.results.profile_file, a result's in labtui.results.result_file.
"""

from __future__ import annotations

import math
import re
import secrets
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime

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

# How a figure is made of a step's repetitions (the profile's `aggregate`): "mean" is their
# average (KDiskMark, fio's loops), "best" the highest throughput and lowest latency of the
# passes, each figure on its own (CrystalDiskMark). Statistics always use every repetition.
AGGREGATES = ("mean", "best")
# The profile's `repeat_order`: "profile" runs the whole profile `repeat` times over; "step" runs
# each step `repeat` times in a row before the next (CrystalDiskMark, KDiskMark).
REPEAT_ORDERS = ("profile", "step")
SECTOR = 512

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
        ) + (("write-through",) if self.write_through and self.writes else ())

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
        if self.duration <= 0:
            raise ValidationError("duration must be greater than zero", f"{where}.duration")
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
        parts = f"margin {format_size(self.free_space_margin)}"
        if self.needs_test_file:
            parts = f"test file {format_size(self.file_size)} + {parts}"
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


# --------------------------------------------------------------------------- context


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
