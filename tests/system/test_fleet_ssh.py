"""`labtui run --hosts` and `labtui check --hosts` against real sshd hosts on loopback addresses.

Every host is a real sshd (tests/support/sshlab.py); labtui reaches it with the system ssh and runs this
checkout's labtui there with a LABTUI_HOME of the host's own. The profile exists only on the
local side: it travels with the command.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, labtui_cmd
from sshlab import ssh_lab

pytestmark = pytest.mark.slow

PROFILE = """\
name = "fleet-small"
title = "Fleet test"
file_size = "16MiB"
free_space_margin = "0"

[[steps]]
name = "Read 64K random"
block_size = "64KiB"
pattern = "random"
threads = 1
outstanding = 4
duration = "{duration}"
warmup = "0s"

[[steps]]
name = "Write 64K random"
block_size = "64KiB"
pattern = "random"
write_percent = 100
threads = 1
outstanding = 4
duration = "{duration}"
warmup = "0s"
"""


@pytest.fixture
def lab(tmp_path, disk_dir):
    with ssh_lab(tmp_path, disk_dir) as lab:
        yield lab


def _profile(tmp_path: Path, duration: str, pause: str = "") -> Path:
    path = tmp_path / "fleet-small.toml"
    text = PROFILE.format(duration=duration)
    if pause:  # a pause between passes, as the cdm profiles and configmgr-sql have
        text = text.replace('free_space_margin = "0"\n', f'free_space_margin = "0"\npause = "{pause}"\n')
    path.write_text(text)
    return path


def _local_results(labtui_home: Path) -> list[dict]:
    out = subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["results"]


def _wait(condition, seconds: float, what: str, proc=None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"labtui ended while waiting for {what}")
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class _Lines:
    """What a process writes to a pipe, read as it comes (a thread), to wait for a line."""

    def __init__(self, pipe) -> None:
        import threading

        self.lines: list[str] = []
        self._thread = threading.Thread(target=lambda: self.lines.extend(iter(pipe.readline, "")), daemon=True)
        self._thread.start()

    def text(self) -> str:
        return "".join(self.lines)


def _gone(host, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not host.agents():
            return True
        time.sleep(0.1)
    return False


def test_two_hosts_run_together_and_their_results_come_home(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    profile = _profile(tmp_path, "1s")
    done = subprocess.run(labtui_cmd("run", "-p", str(profile), "--hosts", str(hosts), "--json", "--tag", "bios-2.1"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [h["host"] for h in report] == ["alpha", "beta"]
    for entry, host in zip(report, (alpha, beta)):
        assert entry["status"] == "completed" and entry["outcome"] == "completed", entry
        result = entry["result"]
        assert [s["name"] for s in result["steps"]] == ["Read 64K random", "Write 64K random"]
        assert all(s["total"]["ios"] > 0 for s in result["steps"])
        assert set(result["tags"]) == {"bios-2.1", f"host:{host.name}"}
        assert result["target"]["path"] == str(host.target)
        # Saved there as any run is, and copied here with its full context.
        remote = host.result_files()
        assert [p.stem for p in remote] == [result["id"]] and entry["saved_on_host"] == [str(remote[0])]
        assert Path(entry["saved_to"][0]).parent == labtui_home / "results"
        assert list(host.target.iterdir()) == [], "the test file must be removed on the host"
        assert not host.agents(), "labtui must have ended on the host"
        comparison = entry["comparison"]
        assert comparison["reference"] == "alpha" and comparison["hosts"] == ["alpha", "beta"]
        assert {s["step"] for s in comparison["steps"]} == {"Read 64K random", "Write 64K random"}
    # One shared start: the hosts ran at the same time.
    a, b = (e["result"] for e in report)
    assert a["started"] < b["ended"] and b["started"] < a["ended"]
    local = _local_results(labtui_home)
    assert sorted(r["id"] for r in local) == sorted(e["result"]["id"] for e in report)
    # The copy holds what the host measured: its steps' exact counts.
    for entry, host in zip(report, (alpha, beta)):
        shown = subprocess.run(labtui_cmd("show", entry["result"]["id"], "--json"), capture_output=True, text=True,
                               check=True)
        copy = json.loads(shown.stdout)
        remote_text = host.result_files()[0].read_text()
        assert str(copy["steps"][0]["total"]["ios"]) in remote_text


def test_plain_output_names_every_host_and_compares_them(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    done = subprocess.run(labtui_cmd("run", "-p", str(_profile(tmp_path, "300ms")), "--hosts", str(hosts)),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "[alpha] step 1/2: Read 64K random" in done.stderr and "[beta] completed" in done.stderr
    assert "Across the hosts (each against alpha" in done.stdout
    assert "fastest" in done.stdout and "slowest" in done.stdout
    assert "The hosts started together" in done.stdout


def test_a_host_cut_off_or_killed_mid_run_is_aborted_while_the_others_complete(lab, tmp_path, labtui_home):
    alpha, beta, gamma = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3"), lab.add("gamma", "127.0.0.4")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta), lab.entry(gamma)])
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(_profile(tmp_path, "4s")), "--hosts", str(hosts), "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    progress = _Lines(proc.stderr)
    try:
        _wait(lambda: all(f"[{h.name}] step 1/2" in progress.text() for h in (alpha, beta, gamma)), 60,
              "every host's first step", proc)
        time.sleep(2.5)  # a measured interval or two into it: some figures have come home
        beta.cut_link()  # the network goes: beta's labtui is left running, with nobody listening
        gamma.kill_labtui()  # gamma's labtui is killed outright
        out = proc.stdout.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, progress.text()
    report = {h["host"]: h for h in json.loads(out)}
    assert report["alpha"]["status"] == "completed", report["alpha"]
    for name in ("beta", "gamma"):
        entry = report[name]
        assert entry["status"] == "aborted", entry
        assert entry["reason"].startswith(f"{name}: ") and ("dropped" in entry["reason"] or "ended" in entry["reason"])
        # The partial result came home: what the host had measured before it went.
        assert entry["result"]["status"] == "aborted" and entry["saved_to"]
        assert entry["result"]["steps"] and entry["result"]["steps"][0]["total"]["ios"] > 0
    # Cut off, beta's labtui noticed, stopped, removed its file and kept its own aborted result.
    assert _gone(beta), "labtui kept running on a host whose link was cut"
    _wait(lambda: list(beta.target.iterdir()) == [], 10, "beta's test file to go")
    statuses = [json.loads(subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True,
                                          env=_env(beta.home), check=True).stdout)["results"][0]["status"]]
    assert statuses == ["aborted"]
    # Killed, gamma's labtui left its cleaning to its guardian: no file either.
    _wait(lambda: list(gamma.target.iterdir()) == [], 10, "gamma's test file to go")
    assert [r["status"] for r in _local_results(labtui_home) if "host:alpha" in r["tags"]] == ["completed"]
    assert sorted(r["status"] for r in _local_results(labtui_home)) == ["aborted", "aborted", "completed"]


def _env(home: Path) -> dict:
    import os

    return os.environ | {"LABTUI_HOME": str(home)}


def test_ctrl_c_stops_every_host_and_leaves_nothing_behind(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(_profile(tmp_path, "60s")), "--hosts", str(hosts), "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: all(list(h.target.glob("labtui-*/labtui-*.dat")) for h in (alpha, beta)), 60, "the test files",
              proc)  # in the run's own directory (labtui.engine.rundir)
        time.sleep(1.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert took < 10, f"took {took:.1f} s to stop the hosts"
    assert "SIGINT: stopping every host" in err
    report = json.loads(out)
    for entry, host in zip(report, (alpha, beta)):
        assert entry["status"] == "aborted" and "stopped by SIGINT" in entry["reason"], entry
        assert entry["result"]["status"] == "aborted"
        assert _gone(host, 5), f"labtui still runs on {host.name}"
        assert list(host.target.iterdir()) == [], f"a test file was left on {host.name}"
        # The host kept its own aborted result, and the same one came home.
        assert [p.stem for p in host.result_files()] == [entry["result"]["id"]]
    assert sorted(r["status"] for r in _local_results(labtui_home)) == ["aborted", "aborted"]


def test_a_signal_while_the_hosts_report_is_printed_lets_it_out_whole(lab, tmp_path, labtui_home):
    """The hosts have ended and their results are home; stdout is full (a reader that has not read yet):
    a SIGTERM then lets the report out whole instead of killing labtui before it."""
    from full_pipe import signalled_while_reporting

    alpha = lab.add("alpha", "127.0.0.2")
    hosts = lab.hosts_file([lab.entry(alpha)])
    code, out, stderr = signalled_while_reporting(
        labtui_cmd("run", "-p", str(_profile(tmp_path, "300ms")), "--hosts", str(hosts), "--json"), signal.SIGTERM,
        tmp_path / "err")
    assert code == 0, stderr
    (entry,) = json.loads(out)
    assert entry["status"] == "completed" and entry["result"]["status"] == "completed"
    assert "SIGTERM came after the hosts had ended; their results are saved here" in " ".join(stderr.split())
    assert [r["status"] for r in _local_results(labtui_home)] == ["completed"]


def _other_version(tmp_path: Path) -> Path:
    """A copy of labtui that says it is another version: a host that was not upgraded."""
    root = tmp_path / "older"
    shutil.copytree(REPO / "labtui", root / "labtui", ignore=shutil.ignore_patterns("__pycache__"))
    init = root / "labtui" / "__init__.py"
    text = init.read_text()
    init.write_text(text.replace('__version__ = "', '__version__ = "0.0.1-older-than-'))
    return root


def test_a_version_mismatch_or_an_unreachable_host_is_refused_while_the_others_run(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    older = lab.entry(beta, env={"PYTHONPATH": str(_other_version(tmp_path))})
    nobody = lab.entry(alpha) | {"name": "gone", "ssh": "root@127.0.0.9"}
    missing = lab.entry(alpha) | {"name": "bare", "labtui": "/nonexistent/labtui"}
    hosts = lab.hosts_file([lab.entry(alpha), older, nobody, missing])
    done = subprocess.run(labtui_cmd("run", "-p", str(_profile(tmp_path, "300ms")), "--hosts", str(hosts), "--json"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    report = {h["host"]: h for h in json.loads(done.stdout)}
    assert report["alpha"]["status"] == "completed"
    refused = report["beta"]
    assert refused["status"] == "refused" and refused["result"] is None
    assert refused["reason"].startswith("beta is refused: it runs labtui 0.0.1-older-than-"), refused["reason"]
    assert "\n" not in refused["reason"]
    assert not beta.result_files() and list(beta.target.iterdir()) == [], "a refused host must be left untouched"
    assert report["gone"]["status"] == "unreachable" and "127.0.0.9" in report["gone"]["reason"]
    assert report["bare"]["status"] == "unreachable" and "did not start there" in report["bare"]["reason"]
    assert f"[beta] refused: {refused['reason']}" in done.stderr


def test_one_at_a_time_runs_each_host_after_the_last_and_a_login_greeting_is_skipped(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    chatty = lab.entry(beta)
    chatty["labtui"] = f"echo 'Welcome to the lab: be kind to the disks'; {chatty['labtui']}"
    hosts = lab.hosts_file([lab.entry(alpha), chatty])
    # The profile pauses between its steps: the pause travels the wire as the other events do.
    profile = _profile(tmp_path, "1s", pause="0.5s")
    done = subprocess.run(labtui_cmd("run", "-p", str(profile), "--hosts", str(hosts), "--json",
                                     "--one-at-a-time"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = (h["result"] for h in json.loads(done.stdout))
    assert first["ended"] <= second["started"], "the second host started before the first had finished"
    assert all(h["status"] == "completed" for h in (first, second))


def test_a_host_that_cannot_run_the_profile_says_why_and_nothing_is_written(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta, target=str(beta.target / "file.txt"))])
    (beta.target / "file.txt").write_text("not a directory")
    done = subprocess.run(labtui_cmd("run", "-p", str(_profile(tmp_path, "300ms")), "--hosts", str(hosts), "--json",
                                     "--one-at-a-time"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    report = {h["host"]: h for h in json.loads(done.stdout)}
    assert report["alpha"]["status"] == "completed"
    assert report["beta"]["status"] == "refused" and "is a file" in report["beta"]["reason"]
    assert [p.name for p in beta.target.iterdir()] == ["file.txt"]


def test_check_on_every_host_against_its_own_baseline(lab, tmp_path, labtui_home):
    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    profile = _profile(tmp_path, "300ms")
    # Short steps: what this test holds is the plumbing, whatever the verdict (below).
    for host in (alpha, beta):  # each host's baseline, made there
        made = subprocess.run(labtui_cmd("run", "-p", str(profile), "-t", str(host.target), "--json", "--yes",
                                         "--repeat", "2"), capture_output=True, text=True, env=_env(host.home))
        assert made.returncode == 0, made.stderr
        rid = json.loads(made.stdout)["id"]
        subprocess.run(labtui_cmd("baseline", rid), capture_output=True, check=True, env=_env(host.home))
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    # One at a time, as the baselines were made: two "hosts" on this one machine share its disk
    # and CPUs, so checking both at once measures each at about half its baseline, a real
    # regression of the conditions that a 50 % tolerance sometimes fails (as it should).
    done = subprocess.run(labtui_cmd("check", "--hosts", str(hosts), "--json", "--repeat", "2", "--confirm", "0",
                                     "--tolerance", "50", "--one-at-a-time"), capture_output=True, text=True,
                          timeout=180)
    report = json.loads(done.stdout)
    outcomes = [h["outcome"] for h in report]
    # The verdict is the disk's: the other tests running beside this one load the same disk and
    # CPUs, a real change of conditions a check may rightly fail. What this test holds is the
    # plumbing: every host judged, and the exit code saying how.
    assert outcomes and set(outcomes) <= {"pass", "cannot tell", "fail"}, report
    expected = 1 if "fail" in outcomes else 0 if set(outcomes) == {"pass"} else 3
    assert done.returncode == expected, done.stderr
    for entry, host in zip(report, (alpha, beta)):
        assert entry["check"]["baseline"] != entry["result"]["id"]
        assert entry["result"]["tags"] == ["check", f"host:{host.name}"]
        assert len(host.result_files()) == 2, "the check's run is saved on the host beside its baseline"
        # Across the hosts: their first passes (a confirmation pass runs alone, after the others).
        assert entry["comparison"]["compared"] == "first passes", entry["comparison"]


# labtui with a quicker link: the local side pings every PING s, the agent stops after SILENCE s
# without a word (30 s in labtui: this test waited that long). Both are read when the link starts.
QUICK_LINK = """\
import sys
from labtui.fleet import wire
wire.PING_SECONDS, wire.SILENCE_SECONDS = {ping!r}, {silence!r}
from labtui.cli import main
sys.exit(main())
"""


def test_a_host_that_hears_nothing_from_the_local_side_stops_its_run_and_cleans_up(lab, tmp_path, labtui_home):
    import sys

    import psutil

    ping, silence = 0.5, 4.0
    quick = tmp_path / "quick_link.py"
    quick.write_text(QUICK_LINK.format(ping=ping, silence=silence))
    alpha = lab.add("alpha", "127.0.0.2")
    hosts = lab.hosts_file([lab.entry(alpha) | {"labtui": f"{sys.executable} {quick}"}])
    proc = subprocess.Popen([sys.executable, str(quick), "run", "-p", str(_profile(tmp_path, "120s")),
                             "--hosts", str(hosts)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    progress = _Lines(proc.stderr)
    clients = []
    try:
        _wait(lambda: "[alpha] step 1/2" in progress.text(), 60, "the first step", proc)
        # Pinged, the host runs on past its silence.
        time.sleep(silence + 1)
        assert alpha.agents() and proc.poll() is None, "the host stopped although the local side pinged it"
        # Frozen, the local labtui neither pings nor closes the link: the ssh connection stays up
        # and carries nothing, as across a network cut that sends no reset.
        clients = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGSTOP)
        frozen = time.monotonic()
        assert _gone(alpha, silence + 20), "the host kept running for a local side that went silent"
        assert time.monotonic() - frozen > silence - ping - 1, "it stopped before the silence was long enough"
        _wait(lambda: list(alpha.target.iterdir()) == [], 10, "the host's test file to go")
        assert len(alpha.result_files()) == 1, "the host keeps its own aborted result"
        text = alpha.result_files()[0].read_text()
        assert 'status = "aborted"' in text and f"nothing heard from the local labtui for {silence:g} s" in text
    finally:
        for p in (psutil.Process(proc.pid), *clients):
            with contextlib.suppress(psutil.Error):
                p.kill()
        proc.wait()


# Run in a terminal of its own, under a shell as a login is: when the terminal goes away the shell
# dies of the hang-up and the kernel hangs up on labtui, the foreground job. The wrapper between
# them ignores SIGHUP to tell the test how labtui ended.
EXIT_CODE_WRAPPER = """\
import signal, subprocess, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
code = subprocess.Popen(sys.argv[2:], preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL)).wait()
open(sys.argv[1], "w").write(str(code))
"""


def test_a_dropped_terminal_stops_every_host_keeps_the_finished_step_and_exits_1(lab, tmp_path, labtui_home):
    import shlex
    import sys

    from tmux_terminal import Terminal

    alpha, beta = lab.add("alpha", "127.0.0.2"), lab.add("beta", "127.0.0.3")
    hosts = lab.hosts_file([lab.entry(alpha), lab.entry(beta)])
    profile = _profile(tmp_path, "60s")
    profile.write_text(profile.read_text().replace('duration = "60s"', 'duration = "2s"', 1))
    wrapper, code = tmp_path / "exit_code.py", tmp_path / "exit-code"
    wrapper.write_text(EXIT_CODE_WRAPPER)
    command = shlex.join([sys.executable, str(wrapper), str(code),
                          *labtui_cmd("run", "-p", str(profile), "--hosts", str(hosts), "--yes")])
    term = Terminal("fleet-hup", f"sh -c {shlex.quote(command + '; true')}", {"LABTUI_HOME": str(labtui_home)})
    try:
        term.wait_for(lambda t: t.count("2/2 Write 64K random") == 2, timeout=90, what="both hosts on their 2nd step")
        time.sleep(1.0)
        term.kill()  # the terminal goes away, as a dropped ssh session's does
        _wait(code.exists, 15, "labtui to end after the hang-up")
    finally:
        term.kill()
    assert code.read_text() == "1"
    results = _local_results(labtui_home)
    assert sorted(r["status"] for r in results) == ["aborted", "aborted"]
    for host in (alpha, beta):
        assert _gone(host, 5), f"labtui still runs on {host.name}"
        assert list(host.target.iterdir()) == [], f"a test file was left on {host.name}"
        assert len(host.result_files()) == 1, "the host keeps its own aborted result"
    for r in results:
        shown = json.loads(subprocess.run(labtui_cmd("show", r["id"], "--json"), capture_output=True, text=True,
                                          check=True).stdout)
        steps = {s["name"]: s["status"] for s in shown["steps"]}
        assert steps.get("Read 64K random") == "completed", steps  # what finished before the hang-up is kept
        assert steps.get("Write 64K random") == "aborted", steps  # and the part of the step it stopped
        assert shown["error"] == "stopped by SIGHUP on the local labtui", shown["error"]
