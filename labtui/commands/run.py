"""Run a profile on a target headless, with live progress on stderr and the result saved."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from labtui.commands.common import whole_number

if TYPE_CHECKING:
    from labtui.run.request import RunRequest
    from labtui.run.runner import Plan, Runner

HELP = "run a workload profile on a target directory"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-p", "--profile", default="quick-sanity", help="profile name or .toml file (default: quick-sanity)")
    parser.add_argument("-t", "--target", metavar="DIR",
                        help="an existing directory on the volume to test (default: the current one; "
                        "with --hosts, each host's own target)")
    parser.add_argument("--all-volumes", action="store_true",
                        help="run on every fixed, writable volume with room for the test file, one result each "
                             "(tagged volume:MOUNT), then compare them; the others are skipped with the reason")
    from labtui.engine.registry import default_engine, engine_choices

    parser.add_argument("-e", "--engine", default=default_engine(), help=engine_choices())
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--tag", action="append", default=[], help="tag the result (repeatable)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a value for one of the profile's parameters, e.g. archive=/data/test.zpaq (repeatable)")
    parser.add_argument("--duration", help="override every step's duration (e.g. 3s) for a quick trial")
    parser.add_argument("--file-size", metavar="SIZE", help="override the test file size (e.g. 256M)")
    parser.add_argument("--repeat", type=whole_number, metavar="N", help="run every step this many times")
    parser.add_argument("--keep-file", action="store_true", help="keep the test file after the run")
    parser.add_argument("--force", action="store_true",
                        help="measure a drive that reports a critical warning (spare below threshold, read-only, "
                             "critical temperature) all the same")
    parser.add_argument("--wait", action="store_true",
                        help="where another labtui run is measuring the disk, start once it has ended instead of "
                             "refusing (Ctrl+C gives up)")
    parser.add_argument("--interval", help="live sample interval, from 100ms to 1h and at most the shortest step "
                        "(default 1s)")
    parser.add_argument("--destroy-data", metavar="/dev/NAME",
                        help="allow write steps on this raw block device (must name the target device)")
    from labtui.commands.fleet import add_arguments as fleet_arguments

    fleet_arguments(parser, run=True)


def parse(args: argparse.Namespace) -> RunRequest:
    """`labtui run`'s options as the request they make; what is wrong whatever the profile is, refused
    in one line naming the option (LabtuiError): options that do not go together, empty or unreadable values."""
    from labtui.commands.common import given, interval_seconds, overrides_given, tags_given
    from labtui.errors import LabtuiError, ValidationError
    from labtui.params import parse_assignments
    from labtui.run.request import RunRequest

    # An empty --hosts ran the profile here, on the current directory; an empty --destroy-data was as if left out.
    given(args.hosts, "--hosts", "a hosts file")
    given(args.destroy_data, "--destroy-data", "the raw device (/dev/NAME)")
    if args.hosts and args.all_volumes:
        raise ValidationError("runs on this machine's volumes: give --hosts or --all-volumes, not both", "--all-volumes")
    if args.wait and (args.hosts or args.all_volumes):
        raise ValidationError("waits for the disk of one target: not with --hosts or --all-volumes", "--wait")
    if args.one_at_a_time and not args.hosts:
        raise ValidationError("goes with --hosts (one host after another)", "--one-at-a-time")
    if args.tolerance is not None and not (args.hosts or args.all_volumes):
        # One target's run is compared with nothing: a tolerance there would be silently ignored.
        raise ValidationError("goes with --hosts or --all-volumes (the smallest difference their comparison "
                              "calls better or worse); a run on one target compares nothing", "--tolerance")
    if args.destroy_data and args.hosts:
        raise LabtuiError("--destroy-data cannot be used with --hosts: raw devices are run on one host at a time")
    # An empty -t must not quietly mean the current directory.
    given(args.target, "--target", "a directory (. is the current one)")
    if args.all_volumes and args.target is not None:
        raise ValidationError("give a target or --all-volumes, not both", "--target")
    if args.all_volumes and args.destroy_data:
        raise ValidationError("--all-volumes writes test files on mounted volumes, never a raw device", "--destroy-data")
    profile = given(args.profile, "--profile")
    given(args.engine, "--engine", "an engine's name")  # "" ran the default engine
    overrides, typed = overrides_given(args.duration, args.file_size, args.repeat)
    interval = interval_seconds(args.interval)
    if args.tolerance is not None:
        from labtui.commands.compare import tolerance

        tolerance(args.tolerance, 0.0)  # a negative one is refused before any host or volume runs
    return RunRequest(
        profile=profile, target=args.target, engine=args.engine, overrides=overrides, tags=tags_given(args.tag),
        params=tuple(parse_assignments(args.param).items()), interval=interval, keep_file=args.keep_file,
        force=args.force, wait=args.wait, destroy_data=args.destroy_data, all_volumes=args.all_volumes,
        hosts=args.hosts, one_at_a_time=args.one_at_a_time, tolerance=args.tolerance,
        as_given=(*typed, *((("interval", args.interval),) if args.interval is not None else ())))


def run(args: argparse.Namespace) -> int:
    request = parse(args)
    if request.hosts:
        from labtui.commands.fleet import run_fleet

        return run_fleet(request, as_json=args.json, yes=args.yes)
    return run_here(request, as_json=args.json, yes=args.yes)


def run_here(request: RunRequest, *, as_json: bool, yes: bool) -> int:
    """The request run on this machine: on its target, or on every volume (`all_volumes`)."""
    import asyncio

    from labtui.commands.common import open_store, request_profile, room_said
    from labtui.commands.progress import confirm, execute
    from labtui.commands.stops import Stops
    from labtui.errors import ExitCode
    from labtui.run.preflight import NoRoom

    store = open_store()
    profile = request_profile(store, request)
    if request.all_volumes:
        from labtui.commands.sweep import run_sweep

        return run_sweep(profile, store, request, as_json=as_json, yes=yes)
    runner = request.runner(profile, store)
    try:
        plan = preflight(runner, wait=request.wait)
    except NoRoom as exc:
        raise room_said(exc) from None
    if not yes:
        try:
            go = confirm(runner, plan)
        except BaseException:  # refused (a raw device off a terminal), or Ctrl+C at the question
            runner.close()
            raise
        if not go:
            runner.close()  # the raw device it holds is free again
            return ExitCode.DECLINED
    with Stops() as stops:
        stops.hold()
        return asyncio.run(execute(runner, as_json=as_json, stops=stops))


def preflight(runner: Runner, *, wait: bool) -> Plan:
    """The run's checks; where another labtui run is measuring the disk, with `wait` once it has
    ended (said once on stderr, and again if yet another run takes the disk first)."""
    import threading

    from labtui.commands.common import stderr
    from labtui.run.disk_wait import preflight_when_free, waiting_words
    from labtui.run.target_lock import TargetBusy

    if not wait:
        try:
            return runner.preflight()
        except TargetBusy as exc:
            raise TargetBusy(f"{exc} (--wait starts this run once it has)") from None

    def busy(refusal: str) -> None:
        stderr().print(f"labtui: waiting for the disk: {waiting_words(refusal)}. This run starts when it has ended; "
                       "nothing is written meanwhile (Ctrl+C gives up).")

    plan = preflight_when_free(runner, threading.Event(), busy)  # Ctrl+C ends the wait (KeyboardInterrupt)
    assert plan is not None  # only a stop set elsewhere ends the wait without a plan
    return plan
