"""`labtui run` (labtui/commands/run.py): its options read and refused before anything runs."""

import json
import re
import subprocess

import pytest

from cli_calls import refusal, run
from conftest import labtui_cmd
from factories import make_result
from labtui.cli import build_parser
from labtui.commands import run as run_command
from labtui.errors import ValidationError
from labtui.results.store import Store, builtin_profiles


def test_an_empty_engine_is_refused_not_taken_for_the_default():
    with pytest.raises(ValidationError, match="^--engine: is empty: give an engine's name or leave the option out$"):
        run_command.parse(build_parser().parse_args(["run", "-e", " "]))


def _run_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import run as run_command

    return run_command.parse(build_parser().parse_args(["run", *options]))


def test_labtui_run_reads_each_option_into_its_request():
    from labtui.run.request import Overrides, RunRequest

    assert _run_request() == RunRequest(profile="quick-sanity", engine="native")
    asked = _run_request("-p", "cdm-nvme", "-t", "/mnt/x", "-e", "fio", "--tag", "a, b", "--tag", "c", "--tag", "a",
                         "--param", "archive=/d/a.zpaq", "--param", "n= 2", "--duration", "1.5m", "--file-size", "256M",
                         "--repeat", "2", "--interval", "500ms", "--keep-file", "--force", "--wait",
                         "--destroy-data", "/dev/sdz")
    assert asked == RunRequest(profile="cdm-nvme", target="/mnt/x", engine="fio", overrides=Overrides(90.0, 256 * 2**20, 2),
                               tags=("a", "b", "c"), params=(("archive", "/d/a.zpaq"), ("n", " 2")), interval=0.5,
                               keep_file=True, force=True, wait=True, destroy_data="/dev/sdz")
    assert (asked.given("duration"), asked.given("file_size"), asked.given("interval")) == ("1.5m", "256M", "500ms")
    assert asked.param_values == {"archive": "/d/a.zpaq", "n": " 2"}
    options = asked.options(force=False)
    assert (options.engine, options.tags, options.interval, options.params, options.keep_file, options.force,
            options.destroy_data) == ("fio", ("a", "b", "c"), 0.5, asked.param_values, True, False, "/dev/sdz")
    assert _run_request().options().interval == 1.0
    sweep = _run_request("--all-volumes", "--tolerance", "2.5")
    assert (sweep.all_volumes, sweep.tolerance, sweep.target) == (True, 2.5, None)
    fleet = _run_request("--hosts", "lab.toml", "--one-at-a-time", "--tolerance", "0", "-t", "/srv")
    assert (fleet.hosts, fleet.one_at_a_time, fleet.tolerance, fleet.target) == ("lab.toml", True, 0.0, "/srv")


@pytest.mark.parametrize(("options", "says"), [
    (("--hosts", "h.toml", "--all-volumes"), "--all-volumes: runs on this machine's volumes: give --hosts or "
                                             "--all-volumes, not both"),
    (("--hosts", "h.toml", "--wait"), "--wait: waits for the disk of one target: not with --hosts or --all-volumes"),
    (("--all-volumes", "--wait"), "--wait: waits for the disk of one target: not with --hosts or --all-volumes"),
    (("--one-at-a-time",), "--one-at-a-time: goes with --hosts (one host after another)"),
    (("--tolerance", "5"), "--tolerance: goes with --hosts or --all-volumes"),
    (("--all-volumes", "--tolerance", "-1"), "--tolerance: must be a percentage of 0 or more, got -1"),
    (("--hosts", "h.toml", "--tolerance", "-2"), "--tolerance: must be a percentage of 0 or more, got -2"),
    (("--all-volumes", "--tolerance", "150"), "--tolerance: must be below 100 (a drop of 100 % is no I/O at all: "
                                              "nothing could be called worse), got 150"),
    (("--hosts", "h.toml", "--destroy-data", "/dev/sdz"), "--destroy-data cannot be used with --hosts: raw devices "
                                                           "are run on one host at a time"),
    (("-t", ""), "--target: is empty: give a directory (. is the current one) or leave the option out"),
    (("-t", " ", "--hosts", "h.toml"), "--target: is empty"),
    # An empty --hosts ran the profile here, on the current directory; an empty --destroy-data was left out.
    (("--hosts", ""), "--hosts: is empty: give a hosts file or leave the option out"),
    (("--hosts", " ", "--all-volumes"), "--hosts: is empty"),
    (("--destroy-data", ""), "--destroy-data: is empty: give the raw device (/dev/NAME) or leave the option out"),
    (("--all-volumes", "-t", "/mnt"), "--target: give a target or --all-volumes, not both"),
    (("--all-volumes", "--destroy-data", "/dev/sdz"), "--destroy-data: --all-volumes writes test files on mounted "
                                                      "volumes, never a raw device"),
    (("-p", ""), "--profile: is empty: give a value or leave the option out"),
    (("--duration", ""), "--duration: is empty"),
    (("--duration", "soon"), "--duration:"),
    (("--duration", "-1s"), "--duration: a duration cannot be negative"),
    (("--file-size", "big"), "--file-size:"),
    (("--file-size", " "), "--file-size: is empty"),
    (("--repeat", "0"), "--repeat: must be at least 1"),
    (("--interval", "1us"), "--interval: unknown duration unit 'us'"),
    (("--interval", ""), "--interval: is empty: give a duration such as 500ms or leave the option out"),
    (("--tag", ","), "--tag: is empty: give a tag or leave the option out"),
    (("--tag", "a\nb"), "--tag: 'a\\nb' is not a tag: it holds the control character '\\n'"),
    (("--param", "archive"), "--param: expected NAME=VALUE, got 'archive'"),
    (("--param", "a=1", "--param", "a=2"), "--param: a is given twice ('1' and '2')"),
])
def test_labtui_run_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _run_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


def test_echo_n_into_labtui_run_writes_nothing_and_exits_4(labtui_home, tmp_path, monkeypatch, capsys):
    # Off a terminal `labtui run` asked nothing and wrote its test file: the "n" piped in is its answer now.
    import io

    from labtui.cli import main

    target = tmp_path / "target"
    target.mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["run", "-t", str(target), "--duration", "1s", "--file-size", "1M", "--json"]) == 4
    out, err = capsys.readouterr()
    assert out == ""  # no prompt in what a script reads as JSON
    assert "labtui will write a 1MiB test file in" in err and "Go ahead? [y/N] n (read from stdin)" in err
    assert err.rstrip().endswith("Not started: nothing was written.")
    assert list(target.iterdir()) == [] and not (labtui_home / "results").exists()


@pytest.mark.parametrize("interval, says", [
    ("1000h", "--interval: must be from 100ms to 200ms, got '1000h' (step 'Read 64K random' lasts 200ms)"),
    ("0.3s", "--interval: must be from 100ms to 200ms, got '0.3s' (step 'Read 64K random' lasts 200ms)"),
    ("50ms", "--interval: must be from 100ms to 200ms, got '50ms'"),
    ("1us", "--interval: unknown duration unit 'us'"),
])
def test_an_interval_no_engine_samples_at_or_longer_than_a_step_is_refused(labtui_home, tmp_path, interval, says):
    # 1000h was taken (fio's --status-interval=1000h never reports), and so were intervals past a
    # step's end; under 100 ms the native engine quietly sampled at 100 ms.
    target = tmp_path / "target"
    target.mkdir()
    out = run("run", "-t", str(target), "--duration", "0.2s", "--file-size", "1M", "--yes", "--interval", interval)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"labtui: error: {says}")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (labtui_home / "results").exists() and list(target.iterdir()) == []  # nothing run, nothing written


QUICK = next(p for p in builtin_profiles() if p.name == "quick-sanity")
SAID = ("quick-sanity overridden on the command line: duration 300ms in every step (was 10s), test file 4MiB (was 1GiB), "
        "every step run 1 time (was 3)")


def labtui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd(*args), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_a_quick_trial_is_described_as_it_ran_in_the_result_show_and_compare(labtui_home, disk_dir, tmp_path):
    full = make_result("20240501-103005-aaaa")  # quick-sanity as its file says: 10 s steps on 1 GiB
    Store(labtui_home).save_result(full)
    target = disk_dir / tmp_path.name
    target.mkdir()
    ran = labtui("run", "-p", "quick-sanity", "-t", str(target), "--duration", "300ms", "--file-size", "4M",
                 "--repeat", "1", "--yes", "--json")
    assert ran.returncode == 0, ran.stderr
    trial_id = json.loads(ran.stdout)["id"]
    trial = Store(labtui_home).find_result(trial_id)
    assert trial.profile.name == "quick-sanity"  # still that profile: compared and baselined with its runs
    assert trial.profile.title == "Quick sanity check, overridden" and trial.profile.description == SAID
    shown = labtui("show", trial_id)
    assert shown.returncode == 0, shown.stderr
    assert "quick-sanity (Quick sanity check, overridden)" in shown.stdout and SAID in shown.stdout
    assert "10 s each on a 1 GiB file" not in shown.stdout
    # The full run still says what its file says.
    assert "10 s each on a 1 GiB file" in labtui("show", full.id).stdout
    compared = labtui("compare", full.id, trial_id)
    assert compared.returncode == 0, compared.stderr
    assert f"{trial_id}: " in compared.stdout and "quick-sanity (overridden)" in compared.stdout
    profile_row = next(line for line in compared.stdout.splitlines() if line.strip().startswith("profile "))
    assert profile_row.split()[1:] == ["quick-sanity", "quick-sanity", "(overridden)"], profile_row
    assert "durations differ: A 10s, B 300ms" in compared.stdout


async def test_history_says_a_result_was_overridden_and_how(labtui_home):
    from tui_support import make_app, move_to, open_history, screen_text, wait_for

    store = Store(labtui_home)
    store.save_result(make_result("20240501-103005-aaaa"))
    trial = make_result("20240502-103005-bbbb", minutes=60,
                        profile=QUICK.with_overrides(duration=0.3, file_size=4 * 1024**2, repeat=1))
    store.save_result(trial)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, trial.id)
        await wait_for(pilot, lambda: SAID in " ".join(screen_text(app).split()), what="the override in the detail")
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await wait_for(pilot, lambda: "20240501-103005-aaaa · completed" in screen_text(app))
        assert "overridden" not in screen_text(app)


async def test_a_profile_saved_from_an_overridden_run_is_described_against_its_file(labtui_home):
    """Save as from a quick trial's profile: the copy's changes are listed, not "overridden on the command line"."""
    from dataclasses import replace

    from labtui.model.profile import RESULT_ORIGIN
    from labtui.screens.prompt import TextPrompt
    from tui_support import make_app, open_workload, set_text, wait_for

    trial = QUICK.with_overrides(duration=0.3, file_size=4 * 1024**2)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        app.profile = replace(trial, origin=f"{RESULT_ORIGIN}:20240502-103005-bbbb")
        await open_workload(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
        await set_text(pilot, "#prompt-input", "trial")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.profile.name == "trial", what="the save")
    saved = Store(labtui_home).profile("trial")
    assert saved.title == "Quick sanity check, edited" and not saved.overridden
    assert saved.description == ("quick-sanity with test file 4MiB (was 1GiB), duration 300ms in every step "
                                 "(was 10s)")


@pytest.mark.parametrize(("args", "message"), [
    (("--duration", "-1s"), "--duration: a duration cannot be negative: '-1s'"),
    (("--file-size", "-5G"), "--file-size: a size cannot be negative: '-5G'"),
    (("--duration", ""), "--duration: is empty: give a value or leave the option out"),
    (("--file-size", " "), "--file-size: is empty: give a value or leave the option out"),
    (("-t", ""), "--target: is empty: give a directory (. is the current one) or leave the option out"),
    (("--file-size", "1X"), "--file-size: unknown size unit 'x' in '1X' (use B, K, M, G, T, P or KiB, MiB, GiB, TiB, PiB)"),
])
def test_run_refuses_bad_options_with_their_reason(labtui_home, tmp_path, args, message):
    target = tmp_path / "target"
    out = run("run", "-t", str(target), "--yes", *args, cwd=tmp_path)
    assert refusal(out) == f"labtui: error: {message}"
    assert not target.exists() and not list(tmp_path.glob("**/labtui-[0-9]*"))


def test_a_profile_with_repeat_out_of_range_says_it_once(labtui_home, tmp_path):
    profile = tmp_path / "twice.toml"
    profile.write_text('name = "twice"\nrepeat = 0\n\n[[steps]]\nname = "r"\nblock_size = "4K"\n')
    message = refusal(run("run", "-p", str(profile), "-t", str(tmp_path / "t"), "--yes"))
    assert message.endswith("repeat: must be from 1 to 100, got 0"), message


@pytest.mark.parametrize(("args", "message"), [
    (("--repeat", "1000000"), "--repeat: must be from 1 to 100, got 1000000"),
    (("--file-size", "1K"), "--file-size: the test file (1KiB) is smaller than one block (64KiB)"),
])
def test_an_override_out_of_range_is_named_as_typed_not_as_the_profiles_key(labtui_home, tmp_path, args, message):
    # The profile's own rule says "repeat:" and "file_size:": keys nobody typed on this command line.
    target = tmp_path / "target"
    target.mkdir()
    assert refusal(run("run", "-t", str(target), "--yes", *args)) == f"labtui: error: {message}"
    assert not list(target.iterdir()) and not (labtui_home / "results").exists()


@pytest.mark.parametrize(("tag", "message"), [
    ("", "--tag: is empty: give a tag or leave the option out"),
    (" , ", "--tag: is empty: give a tag or leave the option out"),
    ("two\nlines", "--tag: 'two\\nlines' is not a tag: it holds the control character '\\n'"),
    ("\x1b[31mred", "--tag: '\\x1b[31mred' is not a tag: it holds the control character '\\x1b'"),
])
def test_a_tag_that_cannot_be_one_is_refused_before_the_run(labtui_home, tmp_path, tag, message):
    out = run("run", "-t", str(tmp_path), "--yes", "--duration", "1s", "--file-size", "1M", "--tag", tag)
    assert refusal(out) == f"labtui: error: {message}"
    assert not (labtui_home / "results").exists() and not list(tmp_path.glob("labtui-[0-9]*"))


def test_a_tolerance_without_hosts_or_volumes_to_compare_is_refused(tmp_path, labtui_home):
    # One target's run is compared with nothing: its --tolerance was silently ignored.
    target = tmp_path / "target"
    target.mkdir()
    done = subprocess.run(labtui_cmd("run", "-t", str(target), "--duration", "0.2s", "--file-size", "1M", "--yes",
                                     "--tolerance", "2"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("labtui: error: --tolerance: goes with --hosts or --all-volumes")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (labtui_home / "results").exists() and list(target.iterdir()) == []  # nothing run, nothing written


def test_a_run_refused_for_room_says_how_to_make_room_as_the_run_screen_does(labtui_home, tmp_path, capsys):
    # "not enough free space in DIR: quick-sanity needs 900 TiB ...": the line stopped there, where the Run
    # screen said how to make room; the command line says it too, in its own options' words.
    from cli_calls import cli

    target = tmp_path / "target"
    target.mkdir()
    code, out, err = cli(capsys, "run", "-p", "quick-sanity", "-t", str(target), "--file-size", "900T", "--yes")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"labtui: error: not enough free space in {target}: quick-sanity needs "), err
    assert re.search(r"\. Make room: a smaller test file \(--file-size, at most \d+(MiB|GiB|TiB)\), another target "
                     r"\(-t DIR\) or, for the profile, a smaller file_size or free_space_margin in its file\.$",
                     err.rstrip()), err
    assert list(target.iterdir()) == []  # nothing was written
