"""Helpers the sub-commands share: consoles, the store, JSON output."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:  # each command imports what it uses when it runs: `labtui --help` stays quick
    from rich.console import Console

    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.files import BrokenFile
    from labtui.results.store import Store
    from labtui.run.preflight import NoRoom
    from labtui.run.request import Overrides, RunRequest

# Into a pipe or a file, rich would lay tables out for 80 columns and cut ids, paths and
# serials short; give them room for their natural width instead (COLUMNS still wins).
PIPE_WIDTH = 240


# Both consoles read no markup: what they print is full of text from outside labtui (paths, step
# names, a host's reasons, tags), and "[/]" in a directory's name crashed the prompt of `labtui run`
# (MarkupError) while "[red]" in a tag vanished. A style is given as a style, or as rich Text.


def stdout() -> Console:
    """The report, one rule for every command: prose wraps between words at the width of the terminal it
    is read on (stdout's; else, into a pipe, the terminal labtui's stderr or stdin is, where `| cat`,
    `| less` and `| tee log` show it; COLUMNS wins over both). With no terminal anywhere (a cron job,
    CI, a file written by a script) tables are laid out PIPE_WIDTH wide and prose is not wrapped at all,
    a paragraph a line, as stderr() writes it there. Piped, stdout was 240 columns wide: `labtui check |
    cat` broke an answer mid-sentence at column 240, and the terminal broke each half mid-word."""

    whole = False
    width = None  # rich's: the terminal's, or COLUMNS
    if not sys.stdout.isatty() and not os.environ.get("COLUMNS"):
        width = screen_columns()
        if width is None:
            width, whole = PIPE_WIDTH, True
    return _dropping_console()(highlight=False, soft_wrap=whole, width=width, markup=False)


def screen_columns() -> int | None:
    """The width of the terminal labtui's stderr, else its stdin, is (None: neither is one): where a report
    piped through `cat`, `less` or `tee` is read."""
    for stream in (sys.stderr, sys.stdin):
        try:
            if stream is not None and stream.isatty():
                columns = os.get_terminal_size(stream.fileno()).columns
                if columns > 0:  # a terminal never given a size says 0
                    return columns
        except (OSError, ValueError, AttributeError):  # replaced or closed (a test's capture, a daemon)
            continue
    return None


def stderr() -> Console:
    """Progress and messages: folded to a terminal's width; into a file or a pipe, whole lines.

    Folded at rich's default 80 columns, a log cuts paths and ids in two: they can no longer be
    copied or searched for. A reader that goes (`2> >(timeout 1 cat)`, Ctrl+C on `2>&1 | tee log`)
    ends nothing: what cannot be written is dropped (progress_closed() says since when).
    """
    console = _dropping_console()(stderr=True, highlight=False, markup=False)
    console.soft_wrap = not console.is_terminal
    return console


_closed_at: list[float] = []  # time.time() of the first write that found stderr closed


def progress_closed() -> float | None:
    """When labtui found its progress output (stderr) closed, if it did: the report says so on stdout."""
    return _closed_at[0] if _closed_at else None


@functools.cache
def _dropping_console() -> type[Console]:
    from rich.console import Console

    class DroppingConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich's own answer points stdout (the report!) at /dev/null and raises SystemExit(1),
            # which, raised in a fleet's event handler, unwound the event loop and cut off every
            # host; and a report whose reader went (`labtui check | head -3`) made the command exit
            # 1, "a regression found", whatever the check found. What cannot be written is dropped;
            # the command goes on and ends with its own exit status.
            import time

            self.quiet = True
            if self.stderr and not _closed_at:
                _closed_at.append(time.time())
            drop_output(sys.stderr if self.stderr else sys.stdout)

    return DroppingConsole


def drop_output(stream: Any) -> None:
    """Point `stream`'s file descriptor at /dev/null: its reader went, and later writes (and Python's
    flush at exit) find nothing to fail on."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    finally:
        os.close(devnull)


def closed_progress_line() -> str | None:
    """The line the report on stdout ends with when progress could not be written (None: it could)."""
    closed = progress_closed()
    if closed is None:
        return None
    import time

    return (f"labtui: the progress output (stderr) was closed at {time.strftime('%H:%M:%S', time.localtime(closed))}"
            "; the run went on and its progress since was dropped")


@overload
def given(value: str, option: str, wanted: str = ...) -> str: ...
@overload
def given(value: str | None, option: str, wanted: str = ...) -> str | None: ...


def given(value: str | None, option: str, wanted: str = "a value") -> str | None:
    """An option's value as given; an empty one is refused (`--duration ""` must not mean "none")."""
    from labtui.errors import ValidationError

    if value is not None and not value.strip():
        raise ValidationError(f"is empty: give {wanted} or leave the option out", option)
    return value


def whole_number(text: str) -> int:
    """An argparse type: a count in ASCII digits (int() alone reads "４" as 4, which nothing else labtui reads takes)."""
    import argparse

    from labtui.errors import ValidationError
    from labtui.units import parse_count

    try:
        return parse_count(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def decimal_number(text: str) -> float:
    """An argparse type: a number such as 5 or 2.5, in ASCII digits (float() alone reads "５" as 5)."""
    import argparse

    from labtui.errors import ValidationError
    from labtui.units import parse_decimal

    try:
        return parse_decimal(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def tags_given(values: Sequence[str]) -> tuple[str, ...]:
    """The --tag values as tags: each one or several, comma-separated as the TUI takes them (`--tag a,b`
    saved one tag "a,b" that the TUI's tag field then split in two); an empty one, or one holding a
    control character, is refused (ValidationError)."""
    from labtui.errors import ValidationError
    from labtui.model.result import split_tags, tag_problem

    tags: list[str] = []
    for value in values:
        found = split_tags(value)
        if not found:  # "", " ", ",": nothing to tag with
            raise ValidationError("is empty: give a tag or leave the option out", "--tag")
        for tag in found:
            problem = tag_problem(tag)
            if problem:
                raise ValidationError(problem, "--tag")
            tags.append(tag)
    return tuple(dict.fromkeys(tags))


def overridden(profile: Profile, *, duration: float | None = None, file_size: int | None = None,
               repeat: int | None = None, repeat_flag: str = "--repeat", stored: str | None = None) -> Profile:
    """`profile.with_overrides(...)`, a value it refuses named by the flag the person typed.

    The profile's rules name its own keys ("repeat: must be from 1 to 100"), which nobody typed
    here: `--repeat 1000000` is refused as "--repeat: ..." (`repeat_flag` where another option
    gives the repeat, as check's --confirm does). A rule an override did not break is the stored
    profile's own: `stored` says whose ("the profile stored in baseline ID cannot be re-run").
    """
    from labtui.errors import ValidationError
    from labtui.model.profile import override_refused

    try:
        return profile.with_overrides(duration=duration, file_size=file_size, repeat=repeat)
    except ValidationError as exc:
        which = override_refused(exc.field, duration=duration, file_size=file_size, repeat=repeat)
        if which is not None:
            flag = {"repeat": repeat_flag, "file_size": "--file-size", "duration": "--duration"}[which]
            raise ValidationError(exc.reason, flag) from None
        if stored is not None:
            raise ValidationError(f"{stored}: {exc}") from None
        raise


def overrides_given(duration: str | None, file_size: str | None, repeat: int | None, *,
                    repeat_flag: str = "--repeat") -> tuple[Overrides, tuple[tuple[str, str], ...]]:
    """--duration, --file-size and --repeat as a quick trial's overrides, and the texts as typed (for what
    is said of them); an empty, unreadable or below-one value is refused naming its option (ValidationError).
    Whether the profile takes them is for `overridden` once the profile is known."""
    from labtui.errors import ValidationError
    from labtui.run.request import Overrides
    from labtui.units import parse_duration, parse_size

    duration, file_size = given(duration, "--duration"), given(file_size, "--file-size")
    seconds = parse_duration(duration, field="--duration") if duration else None
    size = parse_size(file_size, field="--file-size") if file_size else None
    if repeat is not None and repeat < 1:
        raise ValidationError("must be at least 1", repeat_flag)
    typed = tuple((key, text) for key, text in (("duration", duration), ("file_size", file_size)) if text is not None)
    return Overrides(seconds, size, repeat), typed


def interval_seconds(text: str | None) -> float | None:
    """--interval's seconds (None where it was left out): refused if it is not a duration (ValidationError);
    whether it fits the profile's steps is for `request_profile`."""
    from labtui.units import parse_duration

    if text is None:
        return None
    return parse_duration(given(text, "--interval", "a duration such as 500ms"), field="--interval")


def request_profile(store: Store, request: RunRequest) -> Profile:
    """The profile a run request asks for, from the store (a name or a .toml file), with its overrides
    applied and its --interval checked against the steps (LabtuiError naming the option otherwise)."""
    from labtui.errors import ValidationError

    assert request.profile is not None  # a run's request always names one (-p has a default)
    profile = store.profile_to_run(request.profile)
    trial = request.overrides
    profile = overridden(profile, duration=trial.duration, file_size=trial.file_size, repeat=trial.repeat)
    problem = request.interval_problem(profile)
    if problem is not None:
        raise ValidationError(problem, "--interval")
    return profile


def room_said(exc: NoRoom, **words: str | None) -> NoRoom:
    """A refusal for want of room (run, check, baseline --more, the agent of run|check --hosts) with the Run
    screen's advice (run.preflight.make_room), in the command line's words (run.preflight.CLI_ROOM: its options,
    the profile's keys); `words` replaces some (None: no such way here, as for a baseline's stored profile)."""
    from labtui.run.preflight import CLI_ROOM, NoRoom, make_room

    said = {**CLI_ROOM, **words}
    room = make_room(exc, file_size=said["file_size"], target=said["target"] or "", profile=said["profile"])
    return NoRoom(f"{exc}. {room}", room_for_file=exc.room_for_file)


def runs_words(profile: Profile) -> str:
    """What running a profile `repeat` times does, said whole: "each of quick-sanity's 2 steps 3 times
    (one result)", not "quick-sanity 3 times", which reads as three whole runs of three results."""
    count = len(profile.steps)
    steps = f"each of {profile.name}'s {count} steps" if count != 1 else f"{profile.name}'s one step"
    times = f"{profile.repeat} time{'s' if profile.repeat != 1 else ''}"
    prep = " after a preparing pass" if profile.discard_first else ""
    return f"{steps} {times}{prep} (one result)"


def engine_words(profile: Profile, engine: str) -> str:
    """What runs the profile's steps: 'native'; 'native and its commands'; for a profile of command steps
    only, 'its commands alone (no I/O engine)' (it said 'with native', which ran none of them)."""
    commands = sum(1 for step in profile.steps if not step.is_io)
    if commands == len(profile.steps):
        return "its commands alone (no I/O engine)"
    return f"{engine} and its command{'s' if commands != 1 else ''}" if commands else engine


def run_seconds(profile: Profile, before: RunResult | None = None) -> float | None:
    """How long running `profile` takes: its plan, and each command step as long as it took in `before`
    (an earlier run of it); None where a command step's time is not known (a command takes as long as
    it takes: the plan counts none of it)."""
    commands = [step for _i, step, _rep in profile.passes() if not step.is_io]
    took: dict[str, list[float]] = {}
    for s in before.steps if before is not None else ():
        if not s.step.is_io and s.wall_seconds is not None:
            took.setdefault(s.name, []).append(s.wall_seconds)
    if any(step.name not in took for step in commands):
        return None
    return profile.planned_seconds + sum(sum(took[s.name]) / len(took[s.name]) for s in commands)


def time_words(profile: Profile, before: RunResult | None = None, more: str = "", *, whence: bool = True) -> str:
    """'about 1:14'; where it has command steps, 'about 2:05 (its commands as long as they took in ID)'
    (`whence`: said where it was not already), or that its time depends on them: never 'about 0:00'
    for commands that take minutes. `more`: ' more'."""
    from labtui.units import human_duration

    seconds = run_seconds(profile, before)
    if seconds is None:
        if all(not step.is_io for step in profile.steps):
            return "for as long as its commands take"
        return f"about {human_duration(profile.planned_seconds)}{more} and as long as its commands take"
    said = f"about {human_duration(seconds)}{more}"
    if whence and before is not None and any(not step.is_io for step in profile.steps):
        said += f" (its commands as long as they took in {before.id})"
    return said


def open_store() -> Store:
    """The store, once its folders are known to be directories (StoreError, one line, otherwise)."""
    from labtui.results.recovery import recover_saves
    from labtui.results.store import Store

    store = Store()
    store.check_home()
    notes = recover_saves(store)  # results a labtui killed while saving them left behind
    if notes:
        from rich.text import Text

        from labtui.printable import printable

        for note in notes:
            stderr().print(Text.assemble(("note", "yellow"), f" {printable(note)}"), soft_wrap=True)
    return store


def print_json(data: Any) -> None:
    from labtui.results.files import json_safe

    try:
        json.dump(json_safe(data), sys.stdout, indent=2, default=str, allow_nan=False)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `labtui check --json | head`: the reader went; the command's exit status stays its own
        drop_output(sys.stdout)



def warn_broken(broken: Sequence[BrokenFile], *, listed_by: str | None = None) -> None:
    """Tell the person (on stderr) about files that were skipped, so nothing vanishes silently: each one,
    or (with `listed_by`, the command that lists them) one line counting them where there are many."""
    if not broken:
        return
    from rich.text import Text

    from labtui.printable import printable
    from labtui.results.files import LISTED_BROKEN

    err = stderr()
    if listed_by is not None and len(broken) > LISTED_BROKEN:
        folders = sorted({str(item.path.parent) for item in broken})
        where = folders[0] if len(folders) == 1 else f"{len(folders)} folders"
        err.print(Text.assemble(("skipped", "yellow"), f" {len(broken):,} files in {printable(where)} that are not "
                                f"whole labtui results: {listed_by} lists each and why"), soft_wrap=True)
        return
    for item in broken:
        # soft_wrap: a path broken over two lines cannot be copied. printable: a file's name is anyone's.
        err.print(Text.assemble(("skipped", "yellow"), f" {printable(f'{item.path}: {item.reason}')}"), soft_wrap=True)


def result_json(result: RunResult) -> dict[str, Any]:
    """A result's `--json` form plus, per step and metric, its mean, spread and 95 % interval, and
    where each step's limit was (the link's ceiling and the share of it used)."""
    from labtui.analysis.bottleneck import analyse
    from labtui.analysis.comparison import statistics_json, summarize
    from labtui.render.result_json import result_to_json

    return result_to_json(result) | {"statistics": statistics_json(summarize(result)),
                                     "bottleneck": analyse(result).to_json()}
