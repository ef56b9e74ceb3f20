"""What the local side asks each host: its target, and the run or check request (the profile travels in it).

Shared by `labtui run|check --hosts` and the TUI's Fleet screen, so both refuse the same things
the same way before any host is reached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from labtui.errors import LabtuiError
from labtui.fleet.hosts import Host
from labtui.machine import programs
from labtui.model.profile import Profile
from labtui.results.profile_file import profile_to_text
from labtui.run.request import CheckRequest, RunRequest

Request = Callable[[Host], dict[str, Any]]


def targets(hosts: Sequence[Host], given: str | None) -> dict[str, str]:
    """Each host's target: `given` (-t) for all, else its own; a host with neither is refused."""
    missing = [h.name for h in hosts if given is None and h.target is None]
    if missing:
        raise LabtuiError(f"no target for {', '.join(missing)}: give `target` in the hosts file or -t DIR for every "
                          "host (a test file is never written to a host's home directory by default)")
    return {h.name: given if given is not None else str(h.target) for h in hosts}


def over_ssh(hosts: Sequence[Host]) -> None:
    """Refuse a host the hosts file gives only a fio server for: agents are reached over ssh."""
    only_fio = [h.name for h in hosts if not h.ssh]
    if only_fio:
        raise LabtuiError(f"{only_fio[0]} has no ssh entry, only fio_server: its fio server is driven by "
                          "`labtui run -e fio` (fio --client); checks and the other engines run over ssh")


def run_request(hosts: Sequence[Host], request: RunRequest, profile: Profile) -> Request:
    """What each host is sent for `request`: `profile` (read and overridden here) as its text, the
    host's target, and the run's choices, in the form `labtui agent` reads (labtui.fleet.wire)."""
    over_ssh(hosts)
    where = targets(hosts, request.target)
    text = profile_to_text(profile)
    options = request.options()

    def message(host: Host) -> dict[str, Any]:
        return {"type": "run", "profile": text, "target": where[host.name], "engine": options.engine,
                "tags": list(options.tags), "params": dict(options.params), "interval": request.interval,
                "keep_file": options.keep_file}

    return message


def check_request(hosts: Sequence[Host], request: CheckRequest) -> Request:
    """Each host's own `labtui check` for `request`: its profile by name (whose baseline there), the
    overrides and options as the agent reads them (texts, as typed where they were)."""
    over_ssh(hosts)
    run = request.run
    where = targets(hosts, run.target)
    trial = run.overrides
    options = {
        "profile": run.profile, "engine": run.engine, "tolerance": request.tolerance, "repeat": trial.repeat,
        "confirm": request.confirm, "fail_on": list(request.fail_on),
        "duration": run.given("duration") or (f"{trial.duration!r}s" if trial.duration is not None else None),
        "file_size": run.given("file_size") or (str(trial.file_size) if trial.file_size is not None else None),
        "params": [f"{name}={value}" for name, value in run.params],
    }

    def message(host: Host) -> dict[str, Any]:
        return {"type": "check", "target": where[host.name], **options}

    return message


def ssh_program() -> str:
    """The ssh to start (labtui.machine.programs: as root, refused where another user could change it)."""
    path = programs.find("ssh")
    if path is None:
        raise LabtuiError("ssh is not installed here: --hosts runs the system ssh (apt-get install openssh-client)")
    return path


def results_allowed(request: dict[str, Any]) -> int:
    """How many results a host may send for `request`: one per run it asks for. A run request is
    one run; a check is one run per pass, and a second pass only where --confirm is not 0."""
    if request.get("type") == "check":
        return 1 if request.get("confirm") == 0 else 2
    return 1
