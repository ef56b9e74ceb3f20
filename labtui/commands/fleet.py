"""`labtui run --hosts FILE` and `labtui check --hosts FILE`: one profile on many hosts, a live table, a comparison.

The hosts run `labtui agent` through ssh (labtui.fleet.session); with `-e fio` and hosts that have
`fio_server`, the local fio's client mode drives their fio servers instead (labtui.fleet.fio_client).
Live progress goes to stderr: a table refreshed in place on a terminal, a line per host event
otherwise. At the end stdout gets
one line per host, then the cross-host comparison (or, with --json, a list of the hosts'
results). Exit code 0 when every host completed (run) or passed (check); 1 when any did not; 3
when none failed a check but some could not tell; Ctrl+C, SIGTERM and a hang-up (SIGHUP: after it
nothing more is written to the terminal) stop every host (their partial results are saved as
aborted, there and here) and exit 1.
"""

from __future__ import annotations

import argparse

# Everything else is imported when a fleet command runs, not when `labtui --help` builds the
# parser (cli.py): asyncio alone would add tens of milliseconds to every start.
import contextlib
from typing import TYPE_CHECKING, Any

from labtui.commands.common import decimal_number
from labtui.commands.live_display import LiveDisplay
from labtui.errors import ExitCode

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from labtui.commands.stops import Stops
    from labtui.engine.events import Event
    from labtui.fleet.fio_client import FioClientFleet
    from labtui.fleet.host_run import HostRun
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import Request
    from labtui.fleet.session import Fleet
    from labtui.fleet.summary import HostsSummary, StepSpread
    from labtui.results.store import Store
    from labtui.run.request import CheckRequest, RunRequest
    from labtui.settings import Settings

STATE_STYLES = {"completed": "green", "pass": "green", "failed": "red", "fail": "red", "aborted": "yellow",
                "unreachable": "red", "refused": "red", "cannot tell": "yellow"}


def add_arguments(parser: argparse.ArgumentParser, *, run: bool) -> None:
    parser.add_argument("--hosts", metavar="FILE",
                        help=f"{'run' if run else 'check'} on every host of this hosts file over ssh "
                             "(its form: the manual, docs/many-hosts.md)" + (
                                 "; with -e fio and fio_server entries, through fio --client on servers your lab "
                                 "already runs (opt-in: fio's client/server has no authentication and lets a client "
                                 "run commands on the server; trusted networks only)" if run else ""))
    parser.add_argument("--one-at-a-time", action="store_true",
                        help="with --hosts: run the hosts one after another, not together (hosts on shared "
                             "storage would disturb each other)")
    if run:
        parser.add_argument("--tolerance", type=decimal_number, default=None, metavar="PCT",
                            help="with --hosts or --all-volumes: the smallest difference in percent the hosts' "
                                 "or volumes' comparison calls better or worse (default 5)")


def run_request(request: RunRequest, store: Store) -> tuple[list[Host], Request]:
    """The hosts, and what each is sent for `request` (the profile, with its overrides, travels in it)."""
    from labtui.commands.common import request_profile
    from labtui.fleet.requests import run_request as request_for, targets

    hosts = _hosts(request.hosts)
    targets(hosts, request.target)  # every host has a target: refused before the profile is even read
    return hosts, request_for(hosts, request, request_profile(store, request))


def check_request(request: CheckRequest) -> tuple[list[Host], Request]:
    """The hosts, and the check request for each: every host checks against its own baseline."""
    from labtui.errors import LabtuiError
    from labtui.fleet.requests import check_request as request_for

    if request.baseline:
        raise LabtuiError("--baseline cannot be used with --hosts: each host checks against its own baseline "
                          "(marked there with `labtui baseline ID`); -p picks whose")
    if request.run.destroy_data:
        raise LabtuiError("--destroy-data cannot be used with --hosts")
    hosts = _hosts(request.run.hosts)
    return hosts, request_for(hosts, request)


def _hosts(path: str | None) -> list[Host]:
    from labtui.fleet.hosts import load_hosts
    from labtui.fleet.requests import over_ssh

    assert path is not None  # a fleet's request names its hosts file
    hosts = load_hosts(path)
    over_ssh(hosts)  # before the targets and the profile are looked at
    return hosts


def _fio_client_hosts(request: RunRequest) -> list[Host] | None:
    """The hosts file's hosts when `-e fio` drives their fio servers (all have fio_server), else None."""
    from labtui.errors import LabtuiError
    from labtui.fleet.hosts import load_hosts

    if request.engine != "fio" or request.hosts is None:
        return None
    hosts = load_hosts(request.hosts)
    served = [h for h in hosts if h.fio_server is not None]
    if not served:
        return None
    if len(served) != len(hosts):
        missing = next(h.name for h in hosts if h.fio_server is None)
        raise LabtuiError(f"{missing} has no fio_server while others do: -e fio drives either every host's fio "
                          "server or none (give it fio_server, or use a hosts file without them to run fio over ssh)")
    return hosts


def _fio_client_fleet(request: RunRequest, hosts: list[Host], store: Store, display: _Display,
                      settings: Settings) -> FioClientFleet:
    """The fio client fleet for `-e fio` on fio_server hosts; refused up front where fio --client cannot run it."""
    from labtui.commands.common import request_profile
    from labtui.errors import LabtuiError
    from labtui.fleet.fio_client import SECURITY, FioClientFleet
    from labtui.fleet.fio_jobs import refusal
    from labtui.fleet.requests import targets
    from labtui.machine import programs

    where = targets(hosts, request.target)
    profile = request_profile(store, request)
    why = refusal(profile, where)
    if why is not None:
        raise LabtuiError(why)
    fio = settings.engines.fio_path
    program = programs.find(str(fio) if fio else "fio")  # as root, ProgramRefused where another user could change it
    if program is None and fio:
        raise LabtuiError(f"the setting fio_path is {str(fio)!r}, which is not an executable file")
    if program is None:
        raise LabtuiError("fio is not installed here: -e fio with fio_server hosts runs the local fio as the client "
                          "(apt-get install fio)")
    display.say(f"labtui: fio --client on {', '.join(h.fio_where() for h in hosts)}: {SECURITY}", "yellow")
    options = request.options()
    return FioClientFleet(hosts, profile, where, store, fio=program, one_at_a_time=request.one_at_a_time,
                          tags=options.tags, params=options.params, interval=options.interval,
                          keep_file=options.keep_file, on_change=display.changed, on_event=display.event)


def run_fleet(request: RunRequest | CheckRequest, *, as_json: bool, yes: bool = False) -> int:
    """`labtui run --hosts` for a run request, `labtui check --hosts` for a check request; asked first (as
    every command that writes asks: commands.consent) unless `yes`."""
    import asyncio

    from labtui.commands.common import open_store, stderr
    from labtui.fleet.requests import ssh_program
    from labtui.fleet.session import CONNECTIONS, Fleet
    from labtui.run.request import CheckRequest

    check = isinstance(request, CheckRequest)
    run = request.run if isinstance(request, CheckRequest) else request
    store = open_store()
    store.check_writable()  # the hosts' results are copied here: know before they run
    served = None if check else _fio_client_hosts(run)
    display = _Display(stderr(), check=check)
    settings = store.read_settings()
    if settings.broken is not None:  # said with what takes the place of what it held
        instead = "fio from PATH" if served is not None else f"{CONNECTIONS} hosts connect at once, the default"
        display.say(f"labtui: {settings.broken}; {instead}", "yellow")
    fleet: Fleet
    if served is not None:
        fleet = _fio_client_fleet(run, served, store, display, settings.settings)
    else:
        if isinstance(request, CheckRequest):
            hosts, wire_request = check_request(request)
        else:
            hosts, wire_request = run_request(request, store)
        fleet = Fleet(hosts, wire_request, store, one_at_a_time=run.one_at_a_time, ssh=ssh_program(),
                      connections=settings.settings.fleet_connections or CONNECTIONS,
                      on_change=display.changed, on_event=display.event)
    if not yes and not _go_ahead(request, [r.host for r in fleet.runs], store):
        return ExitCode.DECLINED
    display.fleet = fleet
    from labtui.commands.stops import Stops

    # Held from the hosts' start to the last line of the report: a signal after the hosts ended
    # lets the report out whole (the results are already copied here), a second one ends labtui.
    with Stops() as stops:
        stops.hold()
        asyncio.run(_drive(fleet, display, stops))
        ended = len(stops.received)
        code = _report(fleet, as_json=as_json, check=check, tolerance=None if check else run.tolerance)
        late = stops.since(ended)
        if late is not None:
            display.say(f"labtui: {late} came after the hosts had ended; their results are saved here and the "
                        "report was printed whole", "yellow")
        return code


def _go_ahead(request: RunRequest | CheckRequest, hosts: list[Host], store: Store) -> bool:
    """What every host will write, by target, and "Go ahead?": `labtui run --hosts` wrote on every host's
    disk without a word, on a terminal or off one, where the Fleet screen asks first."""
    from labtui.commands.common import request_profile, stderr
    from labtui.commands.consent import go_ahead
    from labtui.fleet.requests import targets
    from labtui.printable import path_text, printable
    from labtui.run.request import CheckRequest
    from labtui.units import format_size, human_duration

    run = request.run if isinstance(request, CheckRequest) else request
    where = targets(hosts, run.target)
    if isinstance(request, CheckRequest):
        what = "re-run its own baseline's profile (labtui check), writing that profile's test file"
    else:
        profile = request_profile(store, request)
        size = f"writing a {format_size(profile.file_size)} test file, " if profile.needs_test_file else ""
        what = f"run {profile.name} with {run.options().engine}, {size}for about {human_duration(profile.planned_seconds)}"
    by_target: dict[str, list[str]] = {}
    for name, target in where.items():
        by_target.setdefault(target, []).append(printable(name, one_line=True))
    count = f"{len(where)} host{'s' if len(where) != 1 else ''}"
    err = stderr()
    err.print(f"labtui will ask {count}, {'one after another' if run.one_at_a_time else 'all together'}, each to "
              f"{what} on its own disk, at its target:", markup=False, highlight=False)
    for target, names in by_target.items():
        err.print(f"  {path_text(target)}: {', '.join(names)}", markup=False, highlight=False)
    return go_ahead(err)


async def _drive(fleet: Fleet, display: _Display, stops: Stops) -> None:
    import asyncio

    task = asyncio.current_task()
    received: list[str] = []

    def on_signal(name: str) -> None:
        # After a hang-up (a dropped ssh session) the terminal is gone, as `labtui run` on one host
        # knows: the live table and the report go nowhere rather than into a terminal that may block.
        received.append(name)
        if len(received) == 1:
            display.say(f"labtui: {name}: stopping every host (their partial results are kept as aborted)", "yellow")
            fleet.stop(name)
        elif task is not None:
            task.cancel()  # a second one: stop waiting for the hosts' reports (they still clean up)

    with stops.during(on_signal, detach=display.detach):
        display.start()
        try:
            await fleet.run()
        except asyncio.CancelledError:
            pass
        finally:
            display.stop()


def _report(fleet: Fleet, *, as_json: bool, check: bool, tolerance: float | None = None) -> int:
    """The hosts' report on stdout (their comparison within `tolerance` percent; None: the default), and the exit code."""
    from labtui.analysis.comparison import DEFAULT_TOLERANCE_PCT
    from labtui.commands.common import closed_progress_line, print_json, stdout
    from labtui.fleet.summary import summarize_hosts

    runs = fleet.runs
    pct = DEFAULT_TOLERANCE_PCT if check or tolerance is None else tolerance
    if check:
        # Like with like: every host's first pass (they ran together). A host whose first pass looked
        # worse or too noisy runs a confirmation pass alone, after the others, on an idler machine:
        # compared with the others' first passes it read "h04 better +288 %". It decides that host's
        # check verdict, not this comparison.
        summary = summarize_hosts([(r.name, r.results[0]) for r in runs if r.results], pct, "first passes")
    else:
        summary = summarize_hosts([(r.name, r.result) for r in runs if r.result is not None], pct)
    if as_json:
        with contextlib.suppress(OSError):
            print_json([_host_json(r, summary) for r in runs])
    else:
        with contextlib.suppress(OSError):
            _print_report(fleet, summary, check=check)
            closed = closed_progress_line()
            if closed is not None:
                stdout().print(closed, soft_wrap=True)
    outcomes = [r.outcome for r in runs]
    if all(o in ("completed", "pass") for o in outcomes):
        return ExitCode.OK
    if check and all(o in ("pass", "cannot tell") for o in outcomes):
        return ExitCode.CANNOT_TELL
    return ExitCode.FAILED


def _host_json(host_run: HostRun, summary: HostsSummary | None) -> dict[str, Any]:
    from labtui.commands.common import result_json

    result = host_run.result
    return {
        "host": host_run.name,
        "ssh": host_run.host.where() if host_run.host.ssh else None,
        "fio_server": host_run.host.fio_where() if host_run.host.fio_server is not None else None,
        "status": host_run.state,
        "outcome": host_run.outcome,
        "reason": host_run.reason,
        "labtui": host_run.labtui,
        "result": result_json(result) if result is not None else None,
        "results": [r.id for r in host_run.results],
        "saved_to": host_run.saved,
        "saved_on_host": host_run.remote_saved,
        "save_errors": host_run.save_errors,
        "check": host_run.check_report,
        "comparison": summary.to_json() if summary is not None and result is not None
        and host_run.name in summary.hosts else None,
    }


def _print_report(fleet: Fleet, summary: HostsSummary | None, *, check: bool) -> None:
    from pathlib import Path

    from rich.table import Table
    from rich.text import Text

    from labtui.commands.common import stdout
    from labtui.render.comparison import comparison_renderable
    from labtui.render.fleet_report import MANY_HOSTS

    out = stdout()
    many = len(fleet.runs) >= MANY_HOSTS
    if many:  # the answer first, then the figures, then where each host's result is
        out.print(Text(_outcome_line(fleet), style="bold"))
        if summary is not None:
            out.print()
            _print_rows(out, summary, fleet.runs)
        out.print()
    # A path per host is 60 columns: with many hosts their folder is said once, under the table.
    folders = {str(Path(r.saved[-1]).parent) for r in fleet.runs if r.saved}
    saved_column = not many or len(folders) > 1
    table = Table(title="Hosts", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("Host", "Outcome", "Result", *(["Saved here"] if saved_column else []), "Why"):
        table.add_column(column, overflow="fold")
    for r in fleet.runs:
        outcome = r.outcome
        result = r.result
        why = r.reason or (r.check_report or {}).get("summary") or ""
        saved = [Text(r.saved[-1] if r.saved else "-")] if saved_column else []
        # Text, not str: a reason comes from the host (ssh's stderr, a remote path) and is not markup.
        table.add_row(Text(r.name), Text(outcome, style=STATE_STYLES.get(outcome, "")),
                      Text(result.id if result else "-"), *saved, Text(str(why)))
    out.print(table)
    if not saved_column and folders:
        # The folder on a line of its own, whole (it is copied, not read): the sentence fits any width.
        out.print("Their results are saved here, tagged host:NAME, in")
        out.print(Text(f"  {folders.pop()}"), soft_wrap=True)
    if many:
        return
    if fleet.start_instant is not None and len([r for r in fleet.runs if r.results]) > 1:
        out.print("The hosts started together, at one shared instant.")
    if summary is None:
        return
    out.print()
    out.print(f"Across the hosts (each against {summary.reference}, the first that completed):", style="bold")
    if check:
        out.print(Text(first_passes_line(fleet.runs)), soft_wrap=True)
    for spread in summary.steps:
        fast, slow = spread.fastest, spread.slowest
        unit = spread.unit if spread.unit != spread.metric else spread.metric
        spread_text = f" ({spread.spread_pct:.1f} % apart)" if spread.spread_pct is not None else ""
        best, worst = ("fastest", "slowest")
        out.print(f"  {spread.step} ({spread.label}): {best} {fast[0]} {_fmt(fast[1], spread)} {unit}, "
                  f"{worst} {slow[0]} {_fmt(slow[1], spread)} {unit}{spread_text}", soft_wrap=True, markup=False)
        if spread.differing:
            claims = "; ".join(f"{h} {v} ({p:+.1f} %, {b})" if p is not None else f"{h} {v} ({b})"
                               for h, v, p, b in spread.differing)
            out.print(f"    beyond noise: {claims}", soft_wrap=True, markup=False)
        else:
            out.print("    none differs from the reference beyond noise"
                      + ("" if summary.noise_known else " that single runs can show (--repeat 3 lets labtui tell)"),
                      soft_wrap=True)
    if not check:
        out.print()
        out.print(comparison_renderable(summary.comparison))


def first_passes_line(runs: list[HostRun]) -> str:
    """What a check's comparison across hosts compares, and what it leaves out."""
    confirmed = [r.name for r in runs if len(r.results) > 1]
    line = "  Compared: each host's first pass, run together."
    if confirmed:
        line += (f" A second pass ran on {', '.join(confirmed)} after the others had finished (on an idler machine): "
                 "it decides that host's check, not this comparison.")
    return line


def _outcome_line(fleet: Fleet) -> str:
    """The run in a sentence: how many hosts did what, and whether they started together."""
    counts: dict[str, list[str]] = {}
    for r in fleet.runs:
        counts.setdefault(r.outcome, []).append(r.name)
    good = len(counts.get("completed", [])) + len(counts.get("pass", []))
    others = [f"{len(names)} {outcome} ({', '.join(names) if len(names) <= 4 else ', '.join(names[:4]) + ' ...'})"
              for outcome, names in counts.items() if outcome not in ("completed", "pass")]
    verb = "passed" if "pass" in counts else "completed"
    line = f"{good} of {len(fleet.runs)} hosts {verb}" + (f"; {'; '.join(others)}" if others else "")
    if fleet.start_instant is not None and len([r for r in fleet.runs if r.results]) > 1:
        line += "; they started together, at one shared instant"
    return line + "."


def _print_rows(out: Console, summary: HostsSummary, fleet_runs: list[HostRun]) -> None:
    """Many hosts: the summary first, then a row per host and step, the warnings once each."""
    from rich.text import Text

    from labtui.render.comparison import bottleneck_lines
    from labtui.render.fleet_report import grouped_bottleneck, grouped_warnings, rows_renderable, summary_renderable

    comparison = summary.comparison
    out.print(summary_renderable(summary))
    if summary.compared == "first passes":
        out.print(Text(first_passes_line(fleet_runs)))
    out.print()
    out.print(rows_renderable(summary))
    for title, line in bottleneck_lines(comparison):
        line = grouped_bottleneck(line, comparison.letters, summary.hosts)
        out.print(Text.assemble(("bottleneck: ", "bold"), f"{title}: {line}"))
    ids = [r.id for r in comparison.results]
    for warning in grouped_warnings(comparison.warnings, comparison.letters, ids, summary.hosts):
        out.print(Text(f"warning: {warning}", style="yellow"))


def _fmt(value: float, spread: StepSpread) -> str:
    from labtui.render.result_tables import fmt_iops

    return fmt_iops(value) if spread.metric == "IOPS" else f"{value:.1f}"


def hidden_line(hidden: list[HostRun]) -> str:
    """What the hosts the live table has no room for are doing: "… 20 more hosts: 12 running, 8 completed"."""
    states: dict[str, int] = {}
    for r in hidden:
        state = "running" if r.state == "running" else r.state_text()
        states[state] = states.get(state, 0) + 1
    said = ", ".join(f"{n} {state}" for state, n in states.items())
    return f"… {len(hidden)} more host{'s' if len(hidden) != 1 else ''} (not shown: the terminal is too short): {said}"


class _Display(LiveDisplay):
    """The hosts' progress on stderr: a live table on a terminal, plain lines otherwise."""

    def __init__(self, console: Console, *, check: bool) -> None:
        super().__init__(console)
        self.fleet: Fleet | None = None
        self.check = check
        self._said: dict[str, str] = {}

    def start(self) -> None:
        names = ", ".join(r.name for r in self.fleet.runs) if self.fleet else ""
        self.say(f"labtui: {'checking' if self.check else 'running on'} {names}")
        super().start()

    def render(self) -> RenderableType:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        from labtui.render.result_tables import fmt_iops, fmt_mib
        from labtui.render.sparkline import sparkline

        table = Table(show_edge=False, pad_edge=False, box=None)
        for column in ("host", "state", "step", "IOPS", "MiB/s", "recent MiB/s"):
            table.add_column(column, no_wrap=True)
        runs = self.fleet.runs if self.fleet else []
        # rich's Live cuts what is taller than the terminal without a word: the hosts that fit, and
        # how many more there are and what they are doing.
        room = max(3, self.console.size.height - 3)
        shown = runs if len(runs) <= room else runs[:room - 1]
        for r in shown:
            figures = r.figures()  # an ended host keeps its last step's (they went blank as it completed)
            state = r.state_text()
            # Text, not str: rich reads a str as markup (a host's name or step in brackets would vanish).
            table.add_row(Text(r.name), Text(state, style=STATE_STYLES.get(state, "")), Text(r.step_text()),
                          fmt_iops(figures[0]) if figures else "", fmt_mib(figures[1]) if figures else "",
                          sparkline(r.spark_mib))
        if len(shown) == len(runs):
            return table
        return Group(table, Text(hidden_line(runs[len(shown):]), style="dim"))

    def changed(self, host_run: HostRun) -> None:
        from labtui.fleet.host_run import ABORTED, COMPLETED, FAILED

        self.update()
        if host_run.ended and self._said.get(host_run.name) != host_run.state:
            self._said[host_run.name] = host_run.state
            style = STATE_STYLES.get(host_run.state, "")
            reason = f": {host_run.reason}" if host_run.reason and host_run.state != COMPLETED else ""
            if host_run.state in (FAILED, ABORTED) or reason:
                self.say(f"[{host_run.name}] {host_run.state}{reason}", style)
            elif not self.live_mode:
                self.say(f"[{host_run.name}] {host_run.state}", style)

    def event(self, host_run: HostRun, event: Event) -> None:
        from labtui.engine.events import RunWarning, StepFinished, StepStarted
        from labtui.render.result_tables import fmt_iops, fmt_mib

        if self.live_mode:
            return
        if isinstance(event, StepStarted):
            self.say(f"[{host_run.name}] step {event.index + 1}/{event.total}: {event.step.name}")
        elif isinstance(event, StepFinished):
            res = event.result
            line = f"[{host_run.name}]   {res.name}: {fmt_iops(res.total.iops)} IOPS, {fmt_mib(res.total.mib_s)} MiB/s"
            if res.status != "completed":
                line += f" [{res.status}: {res.error}]"
            self.say(line)
        elif isinstance(event, RunWarning):
            self.say(f"[{host_run.name}] warning: {event.message}", "yellow")
