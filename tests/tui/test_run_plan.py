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
