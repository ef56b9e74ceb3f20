"""`labtui run/check --hosts` (labtui/commands/fleet.py): the report of a fleet run over many hosts, on synthetic
results: rows per host under a summary, 120 columns, the live table saying how many hosts it has no room for, a
check on hosts comparing first passes."""

from __future__ import annotations

import io
import subprocess

import pytest
from rich.console import Console

from conftest import labtui_cmd
from factories import LAB
from labtui.fleet.host_run import RUNNING
from labtui.fleet.session import Fleet
from labtui.fleet.summary import summarize_hosts
from synthetic import READ, WRITE, completed_fleet, run_result


def _report(fleet: Fleet, monkeypatch, capsys) -> list[str]:
    from labtui.commands import fleet as commands

    monkeypatch.setenv("COLUMNS", "120")
    summary = summarize_hosts([(r.name, r.result) for r in fleet.runs if r.result is not None], 5.0)
    commands._print_report(fleet, summary, check=False)
    return capsys.readouterr().out.splitlines()


def test_twelve_hosts_report_as_rows_under_a_summary_within_120_columns(monkeypatch, capsys):
    lines = _report(completed_fleet(12), monkeypatch, capsys)
    assert max(len(line.rstrip()) for line in lines) <= 120, max(lines, key=len)
    assert lines[0] == "12 of 12 hosts completed; they started together, at one shared instant."
    text = "\n".join(lines)
    # The summary first: fastest, slowest, how far apart, the claims, and the host far from the others.
    summary = " ".join(text[text.index("Across the 12 hosts"):text.index("Read 64K random (")].split())
    assert ("Write 64K random: fastest lab-node-12 (921 IOPS), slowest lab-node-06 (400 IOPS), 56.6 % apart; "
            "beyond noise against lab-node-01: 7 better, 1 worse (lab-node-06); far from the others: lab-node-06 "
            "(-53 % from the median)") in summary, summary
    start = next(i for i, line in enumerate(lines) if line.startswith("Write 64K random (RND64K"))
    header = lines[start + 2].split()
    assert header == ["host", "IOPS", "vs", "lab-node-01", "verdict", "decided", "by"], lines[start:start + 4]
    rows = {line.split()[0]: line.split() for line in lines[start + 4:start + 16]}
    assert list(rows) == [f"lab-node-{i:02d}" for i in range(1, 13)]
    assert rows["lab-node-01"][1:] == ["800", "±1.6", "%", "reference"]
    assert rows["lab-node-06"][1:6] == ["400", "±1.2", "%", "-50.0", "%"] and rows["lab-node-06"][6] == "worse"
    assert "B vs A" not in text and "Saved here" not in text  # no letters; the results' folder once, under the hosts
    assert lines[-1].strip() == "/root/.local/share/labtui/results"


def test_the_live_table_says_how_many_hosts_it_has_no_room_for():
    from labtui.commands.fleet import _Display

    fleet = completed_fleet(32)
    for r in fleet.runs[::2]:
        r.state = RUNNING
    console = Console(file=io.StringIO(), width=120, height=12, force_terminal=True)
    display = _Display(console, check=False)
    display.fleet = fleet
    console.print(display.render())
    shown = console.file.getvalue()
    assert "lab-node-08" in shown and "lab-node-09" not in shown, shown
    assert "… 24 more hosts (not shown: the terminal is too short): 12 running, 12 completed" in shown, shown
    # A completed host keeps its last step's figures (its row went blank as it completed), as on the Fleet screen.
    from labtui.render.result_tables import fmt_iops, fmt_mib

    last = fleet.runs[1].result.steps[-1]  # its last step
    row = next(line for line in shown.splitlines() if line.startswith("lab-node-02"))
    assert "completed" in row and row.split()[2:4] == [fmt_iops(last.total.iops), fmt_mib(last.total.mib_s)], row


def test_check_on_hosts_compares_first_passes_with_first_passes_and_says_so(monkeypatch, capsys):
    """A host whose first pass looked doubtful ran its confirmation pass alone, after the others, on an idle
    machine (4x the IOPS): compared with the others' first passes it read "h04 better +288 %"."""
    import json

    from labtui.commands import fleet as commands

    fleet = completed_fleet(3)
    confirmation = run_result("20240501-110000-beef", {READ: [4000, 4010, 3990], WRITE: [3200, 3210, 3190]})
    fleet.runs[2].results.append(confirmation)
    for r in fleet.runs:
        r.check_report = {"outcome": "pass", "summary": "PASS"}
    monkeypatch.setenv("COLUMNS", "120")
    assert commands._report(fleet, as_json=True, check=True) == 0
    report = json.loads(capsys.readouterr().out)
    comparison = report[2]["comparison"]
    assert comparison["compared"] == "first passes"
    read = next(s for s in comparison["steps"] if s["step"] == "Read 64K random")
    assert {f["host"]: f["value"] for f in read["figures"]}["lab-node-03"] < 1100, read  # its first pass: 1,074
    assert read["beyond_noise"] == [{"host": "lab-node-03", "verdict": "better", "relative_pct": read["beyond_noise"][0]
                                     ["relative_pct"], "decided_by": read["beyond_noise"][0]["decided_by"]}]
    assert read["beyond_noise"][0]["relative_pct"] < 10
    assert commands._report(fleet, as_json=False, check=True) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert ("Compared: each host's first pass, run together. A second pass ran on lab-node-03 after the others had "
            "finished (on an idler machine): it decides that host's check, not this comparison.") in said, said
    assert "+288" not in said and "+300" not in said


def _two_hosts(tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[hosts]]\nname = "lab-01"\nssh = "root@127.0.0.2"\ntarget = "/srv/bench"\n\n'
                     '[[hosts]]\nname = "lab-02"\nssh = "root@127.0.0.3"\ntarget = "/data"\n')
    return hosts


def test_run_and_check_on_many_hosts_say_what_each_host_writes_and_ask_first(labtui_home, tmp_path, monkeypatch,
                                                                           capsys):
    # `labtui run --hosts` wrote on every host's disk without a word, on a terminal or off one (`echo n |`
    # too); the Fleet screen asks first. Answered no, nothing connects to a host.
    from labtui.cli import main

    hosts = _two_hosts(tmp_path)
    monkeypatch.setattr("labtui.fleet.session.Fleet.run", lambda self: pytest.fail("a host was started"))
    said = {}
    for command in (["run", "-p", "quick-sanity", "--duration", "1s", "--file-size", "16M"], ["check"]):
        monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
        assert main([*command, "--hosts", str(hosts)]) == 4
        out, err = capsys.readouterr()
        assert out == "" and "Go ahead? [y/N] n (read from stdin)" in err, err
        assert err.rstrip().endswith("Not started: nothing was written.")
        lines = err.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("labtui will ask 2 hosts, all together"))
        assert lines[first + 1:first + 3] == ["  /srv/bench: lab-01", "  /data: lab-02"], err
        said[command[0]] = lines[first]
    assert said["run"].startswith("labtui will ask 2 hosts, all together, each to run quick-sanity with native, "
                                  "writing a 16MiB test file, for about 0:"), said
    assert said["check"] == ("labtui will ask 2 hosts, all together, each to re-run its own baseline's profile "
                             "(labtui check), writing that profile's test file on its own disk, at its target:")



def test_a_broken_config_toml_is_said_once_before_many_hosts_are_asked(labtui_home, tmp_path, monkeypatch, capsys):
    # config.toml holds fleet_connections: a broken one fell back to the default without a word (audit37).
    from labtui.cli import main
    from labtui.results.store import Store

    Store(labtui_home).settings_path().write_text("fleet_connections = [\n")
    monkeypatch.setattr("labtui.fleet.session.Fleet.run", lambda self: pytest.fail("a host was started"))
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["run", "-p", "quick-sanity", "--hosts", str(_two_hosts(tmp_path))]) == 4
    said = [line for line in capsys.readouterr().err.splitlines() if "config.toml" in line]
    assert len(said) == 1 and said[0].endswith("; 8 hosts connect at once, the default"), said


def test_a_missing_hosts_file_is_bad_input_on_the_command_line(tmp_path, labtui_home):
    for args in (["run", "--hosts", str(tmp_path / "nope.toml")], ["check", "--hosts", str(tmp_path / "nope.toml")]):
        done = subprocess.run(labtui_cmd(*args), capture_output=True, text=True)
        assert done.returncode == 2 and done.stderr.strip() == f"labtui: error: no hosts file {tmp_path / 'nope.toml'}"


def test_a_host_without_a_target_is_refused_before_any_connection(tmp_path, labtui_home):
    hosts = tmp_path / "lab.toml"
    hosts.write_text(LAB)
    done = subprocess.run(labtui_cmd("run", "--hosts", str(hosts)), capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("labtui: error: no target for bench-01: give `target` in the hosts file or -t DIR")
    done = subprocess.run(labtui_cmd("check", "--hosts", str(hosts), "--baseline", "x", "-t", "/tmp"),
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--baseline cannot be used with --hosts" in done.stderr
    done = subprocess.run(labtui_cmd("run", "--one-at-a-time"), capture_output=True, text=True)
    assert done.returncode == 2 and "--one-at-a-time: goes with --hosts" in done.stderr
