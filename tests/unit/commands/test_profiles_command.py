"""`labtui profiles` (labtui/commands/profiles.py): the built-in and user profiles, one in full, broken ones named."""

import json

import pytest

from cli_calls import cli, run


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("labtui: error: ") and "Traceback" not in err


def test_profiles_json_lists_the_builtins_with_their_steps(labtui_home, capsys):
    code, out, _ = cli(capsys, "profiles", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["broken"] == []
    assert [p["name"] for p in data["profiles"]] == [
        "quick-sanity", "configmgr-sql-quick", "configmgr-sql", "cdm-standard", "cdm-nvme", "zpaq-extract", "snia-lite",
        "verify-after-swap"]
    for profile in data["profiles"]:
        assert profile["origin"] == "builtin" and profile["steps"]
        for step in profile["steps"]:
            if step.get("kind") == "command":
                assert {"name", "command", "timeout"} <= set(step)
                continue
            assert profile["planned_seconds"] > 0
            assert {"name", "block_size", "pattern", "write_percent", "threads", "outstanding", "duration",
                    "cache", "latency"} <= set(step)
    zpaq, snia, verify = data["profiles"][-3:]
    assert all(s["verify"] for s in verify["steps"]) and verify["file_size"] == "16GiB"
    assert snia["precondition"] == 2 and all(s["steady_state"] == "snia" for s in snia["steps"])
    assert zpaq["params"] == {"archive": {"description": zpaq["params"]["archive"]["description"], "type": "file"}}


def test_profiles_table_and_one_profile(labtui_home, capsys):
    code, table, _ = cli(capsys, "profiles")
    assert code == 0 and all(name in table for name in ("quick-sanity", "configmgr-sql", "cdm-nvme"))
    code, steps, _ = cli(capsys, "profiles", "configmgr-sql")
    assert code == 0
    assert all(name in steps for name in ("Read 64K random 60s", "Read 64K random 300s", "Write 64K random 300s"))
    assert "64KiB" in steps and "5m" in steps
    # What makes it the post's script beside its steps: -h (write-through) and the 5 s before each 300 s run.
    flat = " ".join(steps.split())
    assert "write-through (every step): writes wait for the media" in flat, steps
    assert "pauses: step 2: 5s before each of its passes; step 4: 5s before each of its passes" in flat, steps
    code, cdm, _ = cli(capsys, "profiles", "cdm-standard")
    flat = " ".join(cdm.split())
    assert ("repetitions: each step 4 times in a row; each step's figure: best of 3 (max throughput, min latency; "
            "1 preparing pass not counted)") in flat, cdm
    assert "pauses: 5s before every pass but the first" in flat and "MB/s (10^6 bytes per second)" in flat, cdm
    assert "repetitions" not in table and "pauses" not in cli(capsys, "profiles", "quick-sanity")[1]
    code, out, _ = cli(capsys, "profiles", "cdm-nvme", "--json")
    assert code == 0 and len(json.loads(out)["steps"]) == 8


def test_user_profiles_and_broken_ones(labtui_home, capsys, tmp_path):
    folder = labtui_home / "profiles"
    folder.mkdir()
    (folder / "mine.toml").write_text('name = "mine"\n[[steps]]\nname = "r"\nblock_size = "4K"\n')
    (folder / "typo.toml").write_text('name = "typo"\n[[steps]]\nname = "r"\nthreds = 4\n')
    code, out, err = cli(capsys, "profiles", "--json")
    assert code == 0
    data = json.loads(out)
    assert ("mine", "user") in [(p["name"], p["origin"]) for p in data["profiles"]]
    assert data["broken"] == [{"path": str(folder / "typo.toml"),
                               "reason": "steps[1]: unknown key 'threds' (did you mean 'threads'?)"}]
    code, table, err = cli(capsys, "profiles")
    assert code == 0 and "mine" in table and f"skipped {folder / 'typo.toml'}" in " ".join(err.split())
    code, _, err = cli(capsys, "profiles", "typo")
    assert code == 2 and one_line_error(err) and "threds" in err
    outside = tmp_path / "trial.toml"
    outside.write_text('name = "trial"\n[[steps]]\nname = "only"\nblock_size = "8K"\n')
    code, out, _ = cli(capsys, "profiles", str(outside), "--json")
    assert code == 0 and json.loads(out)["steps"][0]["block_size"] == "8KiB"


@pytest.mark.parametrize("name", ["no-such-profile", "missing/file.toml", "nothing.toml", "", " "])
def test_unknown_profile_is_one_line_and_exit_2(labtui_home, capsys, name):
    code, out, err = cli(capsys, "profiles", name)
    assert code == 2 and out == "" and one_line_error(err)
    if not name.strip():  # "" listed every profile, " " was looked for as a profile named " "
        assert err == "labtui: error: NAME: is empty: give a profile's name or .toml file, or leave it out to list them all\n"


def test_profiles_json_lists_the_five_builtins_with_steps(labtui_home):
    out = run("profiles", "--json")
    assert out.returncode == 0, out.stderr
    profiles = {p["name"]: p for p in json.loads(out.stdout)["profiles"]}
    assert {"configmgr-sql", "configmgr-sql-quick", "cdm-standard", "cdm-nvme", "quick-sanity"} <= set(profiles)
    sql = profiles["configmgr-sql"]
    assert sql["file_size"] == "20GiB" and sql["free_space_margin"] == "10GiB"
    assert [(s["write_percent"], s["duration"]) for s in sql["steps"]] == [(0, "1m"), (0, "5m"), (100, "1m"), (100, "5m")]
    assert all((s["block_size"], s["threads"], s["outstanding"], s["cache"]) == ("64KiB", 8, 8, "off") for s in sql["steps"])


def test_unknown_profile_is_one_line_exit_2(labtui_home):
    out = run("profiles", "no-such-profile")
    assert out.returncode == 2 and "no profile named" in out.stderr and "Traceback" not in out.stderr
