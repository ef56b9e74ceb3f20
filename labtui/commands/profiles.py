"""List the built-in and user profiles, or show one profile's steps."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labtui.model.profile import Profile

HELP = "list workload profiles (or show one)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="a profile name or .toml file: show its steps")
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")


def _as_json(profile: Profile) -> dict[str, Any]:
    from labtui.results.profile_file import profile_to_table

    return profile_to_table(profile) | {"origin": profile.origin, "planned_seconds": profile.planned_seconds}


def run(args: argparse.Namespace) -> int:
    from labtui.commands.common import open_store, print_json, stdout, warn_broken
    from labtui.render.result_tables import profiles_table, steps_table

    if args.name is not None and not args.name.strip():  # "" listed every profile, " " was looked for by name
        from labtui.errors import ValidationError

        raise ValidationError("is empty: give a profile's name or .toml file, or leave it out to list them all", "NAME")
    store = open_store()
    if args.name is not None:
        profile = store.profile(args.name)
        if args.json:
            print_json(_as_json(profile))
        else:
            stdout().print(steps_table(profile))
        return 0
    profiles, broken = store.profiles()
    warn_broken(broken)
    if args.json:
        print_json({
            "profiles": [_as_json(p) for p in profiles],
            "broken": [{"path": str(b.path), "reason": b.reason} for b in broken],
        })
        return 0
    stdout().print(profiles_table(profiles))
    return 0
