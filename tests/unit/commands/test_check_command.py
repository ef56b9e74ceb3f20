"""`labtui check` (labtui/commands/check.py): its options read and refused before anything runs."""

import pytest

from labtui.cli import build_parser
from labtui.commands import check
from labtui.errors import ValidationError


def _check_request(*options: str):
    return check.parse(build_parser().parse_args(["check", *options]))


@pytest.mark.parametrize(("options", "says"), [
    # An empty --baseline quietly meant "the baseline marked for the target's disk": another result.
    (("--baseline", ""), "--baseline: is empty: give a result's id or a unique beginning of it or leave the option out"),
    (("--baseline", " "), "--baseline: is empty"),
    (("-p", ""), "--profile: is empty: give a profile's name or leave the option out"),
    (("-e", " "), "--engine: is empty: give an engine's name or leave the option out"),
])
def test_an_empty_baseline_profile_or_engine_is_refused_in_one_line(options, says):
    with pytest.raises(ValidationError) as refused:
        _check_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


def test_labtui_check_reads_each_option_into_its_request():
    from labtui.run.request import DEFAULT_CONFIRM, CheckRequest, Overrides, RunRequest

    assert _check_request() == CheckRequest(run=RunRequest(), confirm=DEFAULT_CONFIRM)
    asked = _check_request("-b", "20240501-1", "-p", "cdm-nvme", "-t", "/mnt/x", "-e", "fio", "--tolerance", "20",
                           "--repeat", "4", "--confirm", "0", "--fail-on", "P99, latency", "--fail-on", "cpu,p99",
                           "--duration", "3s", "--file-size", "16M", "--param", "archive=/a", "--destroy-data",
                           "/dev/sdz", "--hosts", "lab.toml", "--one-at-a-time")
    assert asked == CheckRequest(
        run=RunRequest(profile="cdm-nvme", target="/mnt/x", engine="fio", overrides=Overrides(3.0, 16 * 2**20, 4),
                       params=(("archive", "/a"),), destroy_data="/dev/sdz", hosts="lab.toml", one_at_a_time=True),
        baseline="20240501-1", tolerance=20.0, confirm=0, fail_on=("p99", "latency", "cpu"))
    assert asked.run.given("file_size") == "16M"


@pytest.mark.parametrize(("options", "says"), [
    (("-t", ""), "--target: is empty"),
    (("--tolerance", "-3"), "--tolerance: must be a percentage of 0 or more, got -3"),
    (("--fail-on", "p98"), "--fail-on: unknown metric 'p98' (choose from latency, p99, cpu)"),
    (("--repeat", "0"), "--repeat: must be at least 1"),
    (("--confirm", "101"), "--confirm: must be from 0 to 100 (0 decides on the first pass), got 101"),
    (("--duration", ""), "--duration: is empty"),
    (("--file-size", "1Q"), "--file-size:"),
    (("--param", "=1"), "--param: expected NAME=VALUE, got '=1'"),
])
def test_labtui_check_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _check_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


def test_echo_n_into_labtui_check_writes_nothing_and_exits_4(labtui_home, tmp_path, monkeypatch, capsys):
    # `echo n | labtui check` ran the re-run: off a terminal it asked nothing.
    import io

    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, TARGET, run_result

    target = tmp_path / "target"
    target.mkdir()
    baseline = run_result("20261101-120000-aaaa", {READ: [50_000]}, target=TARGET)
    Store(labtui_home).save_result(baseline)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["check", "--baseline", baseline.id, "-t", str(target), "--file-size", "1M", "--duration", "1s"]) == 4
    out, err = capsys.readouterr()
    assert out == "" and "Go ahead? [y/N] n (read from stdin)" in err, err
    assert err.rstrip().endswith("Not started: nothing was written.")
    assert list(target.iterdir()) == [] and [r.id for r in Store(labtui_home).summaries()[0]] == [baseline.id]
