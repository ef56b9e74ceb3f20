"""What the Fleet screen's Start runs on every host, and what it says before: the ready line ("32 hosts
in lab.toml: ctrl+s runs quick-sanity on all of them together") and the question asked first.

No Textual here: the screen (screens/fleet.py) says these and starts the Fleet; a test builds them alone.
A fleet run from the screen is `labtui run --hosts FILE` with the Run screen's Override fields as its
--duration, --file-size and --repeat: every host is sent the profile overridden, its title and
description saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labtui.errors import LabtuiError
from labtui.tui.quick_trial import QuickTrial, trial_words

if TYPE_CHECKING:
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import Request
    from labtui.model.profile import Profile


@dataclass(frozen=True)
class FleetStart:
    """A fleet run ready to be asked about: the profile as it runs, what each host is sent, the ssh to run."""

    profile: Profile  # the Override fields applied
    request: Request
    ssh: str
    overridden: str  # what the Override fields change ('overridden on the Run screen: ...'), or ""
    title: str  # the question's: "Run quick-sanity on 32 hosts?"
    question: str


def hosts_count(hosts: list[Host]) -> str:
    return f"{len(hosts)} host{'s' if len(hosts) != 1 else ''}"


def ready_line(hosts: list[Host], opened: str | None, profile: Profile | None, trial: QuickTrial, *,
               one_at_a_time: bool) -> str:
    """What ctrl+s will run, where. LabtuiError where the Run screen's Override fields do not apply: ctrl+s
    refuses then, and the line says so."""
    overridden = ""
    if trial and profile is not None:
        # The Run screen's Override fields are what a fleet run runs too: said here, or a 5 s trial
        # there reads as what 32 hosts will run for 60 s.
        try:
            said = trial_words(profile, trial.apply(profile))
        except LabtuiError as exc:
            raise LabtuiError(f"The Run screen's Override {exc}: ctrl+s refuses to start until it is fixed or "
                              "cleared there (r).") from None
        overridden = f", {said}," if said else ""
    name = profile.name if profile is not None else "the chosen profile"
    return (f"{hosts_count(hosts)} in {opened}: ctrl+s runs {name}{overridden} on "
            f"{'each in turn' if one_at_a_time else 'all of them together'} "
            f"(ctrl+o: {'together' if one_at_a_time else 'one after another'}).")


def fleet_start(hosts: list[Host], profile: Profile, trial: QuickTrial, engine: str, *, one_at_a_time: bool,
                unsaved: bool) -> FleetStart:
    """`profile` (`unsaved`: with edits in the Workload editor, which do not run) on every host, the Override
    fields applied. LabtuiError, one line, for what stops it: parameters, an Override refused, no ssh."""
    from labtui.fleet.requests import run_request, ssh_program, targets
    from labtui.run.request import RunRequest
    from labtui.tui.run_plan import fleet_question

    saved = profile
    if profile.params:
        raise LabtuiError(f"{profile.name} takes parameters ({', '.join(p.name for p in profile.params)}): "
                          "run it with `labtui run --hosts FILE --param NAME=VALUE`")
    try:
        profile = trial.apply(profile)
    except LabtuiError as exc:
        raise LabtuiError(f"The Run screen's Override {exc}: fix it or clear it there (r)") from None
    request = run_request(hosts, RunRequest(profile=profile.name, engine=engine, overrides=trial.overrides), profile)
    ssh = ssh_program()
    question = fleet_question(profile, targets(hosts, None), engine, one_at_a_time=one_at_a_time)
    said = trial_words(saved, profile)
    if said:
        question = (f"{said[0].upper()}{said[1:]}: clear the Override fields there to run the profile as it "
                    f"is.\n{question}")
    if unsaved:  # as the Run screen says it: the editor's edits are not what runs
        question = (f"Your edits to {profile.name} are not saved: this runs the saved profile (Ctrl+S on the "
                    f"Workload screen saves them).\n{question}")
    return FleetStart(profile, request, ssh, said, f"Run {profile.name} on {hosts_count(hosts)}?", question)
