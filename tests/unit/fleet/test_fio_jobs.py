"""fio's client mode jobs (labtui/fleet/fio_jobs.py): host addresses, job files, what fio says turned into one-line reasons."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from labtui.engine.fio import intervals, output, parse as fr
from labtui.fleet import fio_jobs as fj
from labtui.fleet.hosts import parse_hosts
from labtui.model.profile import Profile, Step
from labtui.results.imports import import_file


def test_hosts_file_fio_server_forms():
    hosts = parse_hosts('[[hosts]]\nname = "a"\nfio_server = "10.0.0.5"\n'
                        '[[hosts]]\nname = "b"\nfio_server = "bench-02.lab:9000"\nssh = "lab@bench-02"\n'
                        '[[hosts]]\nname = "c"\nfio_server = "[fd00::5]:8766"\n')
    assert [h.fio_server for h in hosts] == [("10.0.0.5", 8765), ("bench-02.lab", 9000), ("fd00::5", 8766)]
    assert [fj.client_address(h.fio_server) for h in hosts if h.fio_server] == [
        "ip:10.0.0.5,8765", "bench-02.lab,9000", "ip6:fd00::5,8766"]
    assert hosts[0].ssh == "" and hosts[0].where() == "10.0.0.5:8765" and hosts[1].where() == "lab@bench-02"
    for bad in ('"a b"', '"host:0"', '"host:99999"', "5", '"-x"', '"h,1"', '"host:８７６５"', '"[fd00::5]:８７６６"'):
        with pytest.raises(Exception, match="fio_server"):
            parse_hosts(f'[[hosts]]\nname = "a"\nfio_server = {bad}\n')
    with pytest.raises(Exception, match="or give fio_server"):
        parse_hosts('[[hosts]]\nname = "a"\n')


def test_client_mode_json_of_two_servers_reads_per_host():
    text = (FIXTURES / "fio-json" / "fio-3.33-client-2servers-interval.json").read_text()
    out = output.split_output(text)
    assert len(out.reports) == 1 and any(m.startswith("<vm> Starting 1 process") for m in out.messages)
    report = out.reports[0]
    entries = fj.client_entries(report)
    assert list(entries) == [("127.0.0.5", 18765), ("127.0.0.6", 18766)]  # "All clients" left out
    assert [len(v) for v in entries.values()] == [3, 3]
    assert fj.server_disks(report, "127.0.0.5", 18765) == ["vda"]
    step = Step(name="mix", block_size=4096, pattern="random", write_percent=30)
    for (hostname, _port), jobs in entries.items():
        tracker = intervals.SampleTracker(0.0)
        for job in jobs:
            tracker.add(job)
        tracker.finish()
        result = fr.job_step_result(jobs[-1], step, samples=tuple(tracker.measured))
        final = jobs[-1]
        assert result.read.ios == final["read"]["total_ios"] and result.write.ios == final["write"]["total_ios"]
        assert sum(s.read_ios + s.write_ios for s in tracker.measured) == result.total.ios
        assert len(tracker.measured) >= 2, hostname
    assert entries[("127.0.0.5", 18765)][-1]["read"]["total_ios"] == 17108
    # `labtui import` reads the same file the same way: one result per server, its interval reports as samples.
    imported = import_file(FIXTURES / "fio-json" / "fio-3.33-client-2servers-interval.json")
    assert [r.host.name for r in imported] == ["127.0.0.5:18765", "127.0.0.6:18766", "All clients"]
    for result in imported[:2]:
        (step,) = result.steps
        assert len(step.samples) >= 2 and sum(s.read_ios for s in step.samples) == step.read.ios


def test_fio_messages_become_one_line_reasons():
    lines = ["client: host=10.0.0.5 disconnected", "fio: bad server cmd version 98",
             "fio: client/server version mismatch (98 != 97)"]
    assert "client/server version mismatch (98 != 97)" in fj.fault_reason(lines, "10.0.0.5:8765")
    assert fj.fault_reason(["fio: connect: Connection refused", "fio: failed to connect to 10.0.0.5:8765"],
                           "10.0.0.5:8765") == "fio could not connect to 10.0.0.5:8765: Connection refused"
    assert "dropped the connection" in fj.fault_reason(["client: host=10.0.0.5 disconnected"], "x")
    assert fj.fault_reason(["<vm> Starting 1 process", "<vm> "], "x") is None
    assert fj.job_errors(["<vm> fio: /x is not a directory", "<vm> fio: job labtui dropped"]) == [
        "/x is not a directory", "job labtui dropped"]
    facts = fj.probe_facts(["hostname=bench-01, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1"])
    assert facts == fj.ServerFacts("bench-01", "Linux", "x86-64", 64, "3.33")


def test_a_step_becomes_a_job_in_the_servers_directory():
    step = Step(name="r", block_size=4096, pattern="random", threads=2, outstanding=4)
    options = fj.job_options(step, "/mnt/nvme/labtui", "labtui-x.fio.dat", 64 * 2**20, linux=True, unlink=True)
    assert options[:3] == ["directory=/mnt/nvme/labtui", "filename=labtui-x.fio.dat", "unique_filename=0"]
    assert "ioengine=libaio" in options and "numjobs=2" in options and "iodepth=4" in options
    assert "time_based" in options and options[-1] == "unlink=1"
    assert not any(o.startswith(("name=", "eta=", "status-interval=", "output-format=")) for o in options)
    assert fj.job_file(options).startswith("[labtui]\ndirectory=/mnt/nvme/labtui\n")
    assert fj.refusal(Profile(name="p", steps=(step,)), {"a": "/mnt/x"}) is None


def test_a_target_fios_job_file_would_misread_is_refused_and_a_colon_is_escaped():
    profile = Profile(name="p", steps=(Step(name="r", block_size=4096),))
    for target, said in (("/mnt/x\nexec_prerun=rm", "fio's job file would not read"),
                         ("/mnt/${HOME}", "fio's job file would not read"), ("relative/dir", "absolute directory")):
        why = fj.refusal(profile, {"alpha": target})
        assert why is not None and said in why and why.startswith("alpha: "), why
    options = fj.job_options(profile.steps[0], "/mnt/a:b", "f.dat", 2**20, linux=True, unlink=False)
    assert options[0] == "directory=/mnt/a\\:b"  # fio reads a bare ':' as a list of directories
