"""What a person asks of a run (RunRequest), a check (CheckRequest) or a baseline (BaselineRequest), typed,
read once where it was asked.

The command line reads its options into one (`labtui.commands.run.parse`, `labtui.commands.check.parse`,
`labtui.commands.baseline.parse`:
every one-line refusal of a value that is wrong whatever the profile is said there), the Run screen
builds one from its fields, the Fleet screen from its choices, and a host's agent from the request
that came over ssh. What starts a run takes one: the local runner (`options()` for `Runner`), the
Run screen, the fleet (`labtui.fleet.requests` turns one into what each host is sent).

A request names its profile; the profile is read where the run happens (the store here, the
request's text on a host) and the overrides are applied to it there, since whether 1K is too
small a test file depends on the profile. Two requests asked for the same things are equal,
however they were typed (`as_given` keeps the texts for messages only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `labtui --help` reads DEFAULT_CONFIRM from here: the rest is imported when a request is used
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.store import Store
    from labtui.run.options import RunOptions
    from labtui.run.runner import Runner

DEFAULT_CONFIRM = 8  # a check's second pass: its runs (a confirmation decides alone, so it needs power of its own)


@dataclass(frozen=True)
class Overrides:
    """A quick trial: every I/O step's duration, the test file's size, the runs of each step (None: the profile's)."""

    duration: float | None = None  # seconds
    file_size: int | None = None  # bytes
    repeat: int | None = None

    def __bool__(self) -> bool:
        return any(value is not None for value in (self.duration, self.file_size, self.repeat))

    def apply(self, profile: Profile, *, where: str = "on the command line") -> Profile:
        """`profile` overridden (itself where nothing is): ValidationError from the profile's rules,
        which name the profile's keys; `refused(field)` tells which override broke one."""
        if not self:
            return profile
        return profile.with_overrides(duration=self.duration, file_size=self.file_size, repeat=self.repeat, where=where)

    def refused(self, field: str) -> str | None:
        """Which override ("duration", "file_size", "repeat") broke the profile's rule on `field`, if one did."""
        from labtui.model.profile import override_refused

        return override_refused(field, duration=self.duration, file_size=self.file_size, repeat=self.repeat)


@dataclass(frozen=True)
class RunRequest:
    """One run (or a run on each volume, or on each host) of a profile, with everything asked of it."""

    profile: str | None = None  # a profile's name or .toml file; None only in a check (the baseline's)
    # None: the current directory; with `hosts`, each host's own; with `all_volumes`, every volume's;
    # in a check, the baseline's.
    target: str | None = None
    engine: str | None = None  # None: the default engine (in a check: the baseline's)
    overrides: Overrides = Overrides()
    tags: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()  # the profile's parameters given (NAME, VALUE), in order given
    interval: float | None = None  # seconds between live samples; None: the default (1 s)
    keep_file: bool = False
    force: bool = False  # measure a drive that reports a critical warning all the same
    wait: bool = False  # where another labtui run measures the disk, start when it has ended
    destroy_data: str | None = None  # the raw device named to allow its destruction
    all_volumes: bool = False  # a run on every fixed, writable volume with room, one result each
    hosts: str | None = None  # a hosts file: the run on each of its hosts
    one_at_a_time: bool = False  # with hosts: one after another
    tolerance: float | None = None  # percent: the hosts' or volumes' comparison (None: its default)
    # The texts as they were typed ("interval": "0.3s", "file_size": "16M"), for what is said of
    # them ("got '0.3s'", "a 16M test file"); the values above are what the request means.
    as_given: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def param_values(self) -> dict[str, str]:
        return dict(self.params)

    def given(self, key: str) -> str | None:
        """How `key` ("duration", "file_size", "interval") was typed, where it was."""
        return dict(self.as_given).get(key)

    def interval_problem(self, profile: Profile) -> str | None:
        """Why the interval asked for does not fit `profile`'s steps, or None (also where none was asked)."""
        if self.interval is None:
            return None
        return profile.interval_problem(self.interval, self.given("interval"))

    def options(self, **more: Any) -> RunOptions:
        """The runner's options for this request; `more` adds what only the caller knows (its engine
        settings, a device's consent, a disk's lock held across runs)."""
        from labtui.engine.registry import default_engine
        from labtui.model.profile import DEFAULT_INTERVAL
        from labtui.run.options import RunOptions

        return RunOptions(**{
            "engine": self.engine or default_engine(), "tags": self.tags, "keep_file": self.keep_file,
            "interval": self.interval if self.interval is not None else DEFAULT_INTERVAL,
            "params": self.param_values, "destroy_data": self.destroy_data, "force": self.force, **more})

    def runner(self, profile: Profile, store: Store, **more: Any) -> Runner:
        """This request run here: `profile` (its profile, read and overridden by the caller) on its target (the
        current directory where none is named), saved in `store`; `more` as for `options()`."""
        from labtui.run.runner import Runner

        return Runner(profile, self.target or ".", store, self.options(**more))


@dataclass(frozen=True)
class CheckRequest:
    """A check: a re-run of a baseline's profile (`run`: whose baseline, where, with what), judged against it."""

    run: RunRequest = RunRequest()
    baseline: str | None = None  # a result's id; None: the one marked for the target's disk (and `run.profile`)
    tolerance: float | None = None  # percent of regression that fails; None: the check's default
    confirm: int = DEFAULT_CONFIRM  # runs of the second pass a failing or doubtful first pass takes (0: none)
    fail_on: tuple[str, ...] = ()  # metrics that also fail it, by their --fail-on names


@dataclass(frozen=True)
class BaselineRequest:
    """Results marked as a baseline (or added to one, or taken out), or the baselines listed; with `more`,
    the first result's stored profile run again here, its runs added (`more_run` is that run's request)."""

    ids: tuple[str, ...] = ()  # results (ids or unique prefixes): the first marked, the others its runs; none: list
    add: bool = False  # add the results to the first one's baseline instead of marking it anew
    clear: bool = False  # take the one result out of its baseline
    more: int | None = None  # run each step of the first result's profile this many more times now, and add them
    target: str | None = None  # where `more` runs (None: the result's own target)

    def more_run(self, result: RunResult, more: int | None = None) -> RunRequest:
        """The run that adds `more` (default: this request's) runs per step to `result`'s baseline: its stored
        profile (repeated so, read by the caller) with its engine and parameters, on the target asked for or
        its own, tagged "baseline". A profile of command steps only ran no I/O engine (its result says
        "command"): any will do, so the default one."""
        runs = more if more is not None else self.more
        return RunRequest(target=self.target or result.target.path,
                          engine=result.engine.name if result.profile.needs_test_file else None,
                          overrides=Overrides(repeat=runs), tags=("baseline",), params=tuple(result.params.items()))
