"""What a run would do, said before it starts: the Run screen's setup line and the questions asked
before a single key starts a run that writes (History's "run again", the Disks screen's marked
volumes, the Fleet screen's Start on every host). One wording for all, so the question names what
the Run screen shows: the profile, the target, the test file's size and how long it takes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from labtui.engine.registry import engine_title
from labtui.machine.target_choice import Target, run_extent
from labtui.model.profile import Profile
from labtui.printable import path_text
from labtui.units import format_duration, human_duration

# The hosts the Fleet screen's question names for a target before it says "and N more": the
# question stays on an 80x24 screen with 32 hosts.
NAMED_HOSTS = 3
NAMED_TARGETS = 4


def plan_parts(profile: Profile, target: Target | None) -> list[str]:
    """'2 steps', 'each step run 3 times: mean of 3', 'about 1:14 + a 1GiB test file to write' ..."""
    parts = [f"{len(profile.steps)} step{'s' if len(profile.steps) != 1 else ''}"]
    if profile.repeat > 1 or profile.discard_first:
        parts.append(f"each step run {profile.passes_per_step} times: {profile.aggregation_text()}")
    if profile.pause:
        parts.append(f"{format_duration(profile.pause)} pause between passes")
    if profile.needs_test_file:
        parts.append(run_extent(profile, target))
    if any(not step.is_io for step in profile.steps):
        parts.append("commands take as long as they take")
    return parts


def run_question(profile: Profile, target: Target, engine: str | None = None) -> str:
    """The body of "Run PROFILE again?": where, with what, what it writes for how long, and each command it runs.

    A result's profile is whoever made the result's: a fleet host's, another lab's file. Its command steps
    run in a shell here (as root, where labtui runs as root), so the question shows each one as
    `labtui run`'s "Go ahead?" does, not "commands take as long as they take" alone under a step's name.
    """
    title = f" ({profile.title})" if profile.title and profile.title != profile.name else ""
    with_engine = f" with {engine_title(engine)}" if engine else ""
    commands = [step for step in profile.steps if not step.is_io]
    listed = ""
    if commands:
        who = " as root" if os.geteuid() == 0 else ""
        listed = (f"It runs {'this command' if len(commands) == 1 else 'these commands'} in a shell{who}:\n"
                  + "".join(f"  {path_text(step.name)}: {path_text(step.command)}\n" for step in commands))
    return (f"{profile.name}{title} on {target.describe()}{with_engine}.\n"
            f"{' · '.join(plan_parts(profile, target))}.\n"
            f"{listed}Enter or y starts it.")


def volumes_question(profile: Profile, targets: Sequence[Target]) -> str:
    """The body of "Run PROFILE on N volumes?": each volume and its directory, and what each run does."""
    if len(targets) == 1:
        return run_question(profile, targets[0])
    title = f" ({profile.title})" if profile.title and profile.title != profile.name else ""
    rows = [f"  {t.mount_point or t.directory}: {t.directory}" for t in targets]
    each = " · ".join(plan_parts(profile, targets[0] if targets else None))
    total = (f" (about {human_duration(profile.planned_seconds * len(targets))} in all)"
             if profile.io_steps and not any(s.steady_state for s in profile.io_steps) else "")
    return (f"{profile.name}{title} on each volume in turn, then their comparison:\n" + "\n".join(rows)
            + f"\nOn each: {each}{total}.\nEnter or y starts it.")


def fleet_question(profile: Profile, targets: dict[str, str], engine: str, *, one_at_a_time: bool) -> str:
    """The body of "Run PROFILE on N hosts?": where each host writes (its target, by host), how, and
    how long, as the Run screen's question says it for one disk. `targets` is each host's target by
    its name (labtui.fleet.requests.targets)."""
    title = f" ({profile.title})" if profile.title and profile.title != profile.name else ""
    count = f"{len(targets)} host{'s' if len(targets) != 1 else ''}"
    order = "one after another" if one_at_a_time else "all together"
    by_target: dict[str, list[str]] = {}
    for name, target in targets.items():
        by_target.setdefault(target, []).append(path_text(name))
    rows = []
    for target, names in list(by_target.items())[:NAMED_TARGETS]:
        more = f" and {len(names) - NAMED_HOSTS} more" if len(names) > NAMED_HOSTS else ""
        rows.append(f"  {path_text(target)}: {', '.join(names[:NAMED_HOSTS])}{more}")
    if len(by_target) > NAMED_TARGETS:
        rest = list(by_target.values())[NAMED_TARGETS:]
        rows.append(f"  and {len(rest)} other targets ({sum(len(n) for n in rest)} hosts): in the hosts file")
    each = " · ".join(plan_parts(profile, None))
    total = (f" (about {human_duration(profile.planned_seconds * len(targets))} in all)"
             if one_at_a_time and len(targets) > 1 and profile.io_steps
             and not any(s.steady_state for s in profile.io_steps) else "")
    return (f"{profile.name}{title} with {engine_title(engine)} on {count}, {order}: each reachable host "
            "writes to its own disk, at its target:\n" + "\n".join(rows)
            + f"\nOn each: {each}{total}.\nEnter or y starts it.")
