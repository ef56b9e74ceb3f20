"""The compare, export, baseline and check commands on saved synthetic results (no engine run)."""

import csv
import io
import json
import os
import re
import subprocess

from conftest import labtui_cmd
from labtui.results.store import Store
from markdown_tables import tables
from synthetic import READ, WRITE, run_result


def run(*args):
    env = os.environ | {"COLUMNS": "200"}
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env)


def save_pair(home):
    store = Store(home)
    a = store.save_result(run_result("20261101-120000-aaaa", {READ: [50_000], WRITE: [40_000]}))[0]
    b = store.save_result(run_result("20261101-130000-bbbb", {WRITE: [40_100], READ: [30_000]}, minutes=60,
                                     engine="fio"))[0]
    return a.id, b.id


def test_compare_prints_a_table_json_and_markdown(labtui_home):
    a, b = save_pair(labtui_home)
    out = run("compare", a, b)
    assert out.returncode == 0, out.stderr
    assert "Read 64K random" in out.stdout and "engines differ" in out.stdout
    assert "noise unknown" in out.stdout and "single runs" in out.stdout and not re.search(r"%\s+(better|worse)\b", out.stdout)
    assert "--repeat 3" in out.stdout  # nothing is known about this disk's noise: how to measure it
    # The answer is the first line; the method only with --explain.
    assert out.stdout.startswith("Cannot tell yet: B measured 40 % slower at 64K random reads, but single runs "
                                 "cannot tell a difference from noise; the engines differ (A native, B fio)"), out.stdout[:300]
    assert "Welch" not in out.stdout and "How the verdicts were reached" not in out.stdout
    explained = run("compare", a, b, "--explain").stdout
    assert "How the verdicts were reached" in explained and "Welch" in explained
    data = json.loads(run("compare", a[:12], b, "--json").stdout)
    assert data["answers"][0]["outcome"] == "cannot tell" and data["answers"][0]["text"].startswith("Cannot tell yet")
    assert [c["key"] for c in data["answers"][0]["causes"]] == ["engine"]
    assert [r["id"] for r in data["results"]] == [a, b]
    read = next(s for s in data["steps"] if s["name"] == "Read 64K random")
    delta = read["metrics"][0]["deltas"][1]
    assert delta["verdict"] == "noise unknown" and delta["claim"] is False and delta["decided_by"] == "single runs"
    assert delta["relative_pct"] == -40.0
    md = run("compare", a, b, "--markdown", "--tolerance", "50")
    assert md.returncode == 0
    rows = tables(md.stdout)[0]
    assert rows[0]["B vs A"] == "-40.0 %" and rows[0]["Verdict"] == "noise unknown · single runs"
    # Latency figures are bare numbers: the metric says their unit, in the table and in Markdown.
    metrics = [r["Metric"] for r in rows]
    assert "mean latency (ms, lower is better)" in metrics and "p99 latency (ms, lower is better)" in metrics
    assert "mean ms ↓" in out.stdout and "p99 ms ↓" in out.stdout


def test_compare_of_single_runs_hints_from_earlier_runs_of_the_disk(labtui_home):
    store = Store(labtui_home)
    for i, iops in enumerate((50_000, 52_000, 48_500, 51_000)):  # earlier single runs: about 3 % apart
        store.save_result(run_result(f"20261020-1{i}0000-e{i:03d}", {READ: [iops], WRITE: [40_000 + 500 * i]},
                                     minutes=-60 * (i + 1)))
    a, b = save_pair(labtui_home)
    data = json.loads(run("compare", a, b, "--json").stdout)
    read = next(s for s in data["steps"] if s["name"] == "Read 64K random")
    hint = read["metrics"][0]["deltas"][1]["hint"]
    assert hint.startswith("about ") and "runs each would tell a 10 % change" in hint
    assert "in 4 earlier runs of quick-sanity on this disk" in hint
    assert any("runs each would tell" in h for h in data["hints"])


def test_compare_bad_input_is_one_line_exit_2(labtui_home):
    a, _ = save_pair(labtui_home)
    for args in (("compare", a), ("compare", a, "no-such-id"), ("compare", a, a, "--tolerance", "-1")):
        out = run(*args)
        assert out.returncode == 2, args
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    # A tolerance of 100 % or more calls nothing worse: refused before the ids are looked for.
    out = run("compare", "no-such-id", a, "--tolerance", "150")
    assert out.returncode == 2 and out.stderr.startswith("labtui: error: --tolerance: must be below 100"), out.stderr


def test_export_all_results_as_csv_json_and_markdown(labtui_home):
    save_pair(labtui_home)
    text = run("export").stdout
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(rows) == 4 and {r["engine"] for r in rows} == {"native", "fio"}
    data = json.loads(run("export", "--format", "json").stdout)
    assert [float(r["iops"]) for r in rows] == [r["iops"] for r in data["rows"]]
    assert len(tables(run("export", "20261101-13", "--format", "markdown").stdout)[0]) == 2
    assert run("export", "nope").returncode == 2


def test_export_gives_a_result_named_twice_once(labtui_home):
    """Ids that name one result twice (an id and a prefix of it) must not double its rows in a spreadsheet."""
    a, b = save_pair(labtui_home)
    rows = list(csv.DictReader(io.StringIO(run("export", b, a, a[:12], b[:15]).stdout, newline="")))
    assert [r["result_id"] for r in rows] == [b, b, a, a]
    assert [r["result_id"] for r in json.loads(run("export", a, a, "--format", "json").stdout)["rows"]] == [a, a]


def test_baseline_mark_list_clear(labtui_home):
    a, b = save_pair(labtui_home)
    out = run("baseline", a)
    assert out.returncode == 0 and "baseline for quick-sanity on WD_BLACK" in out.stdout
    replaced = json.loads(run("baseline", b, "--json").stdout)
    assert replaced["replaced"]["result"] == a
    # Marked again, it replaces nothing: no result is named as replaced, in JSON or in text.
    again = json.loads(run("baseline", b, "--json").stdout)
    assert again["replaced"] is None and again["baseline"]["result"] == b
    assert "replaces" not in run("baseline", b).stdout
    listed = json.loads(run("baseline", "--json").stdout)["baselines"]
    assert [x["result"] for x in listed] == [b] and listed[0]["state"].startswith("completed")
    assert run("baseline", b, "--clear").returncode == 0
    assert json.loads(run("baseline", "--json").stdout)["baselines"] == []
    assert run("baseline", b, "--clear").returncode == 2


def test_check_bad_input_exits_2_and_writes_nothing(labtui_home, tmp_path):
    a, _ = save_pair(labtui_home)
    target = tmp_path / "target"
    target.mkdir()
    unknown = run("check", "--baseline", "no-such-id", "-t", str(target), "--yes")
    assert unknown.returncode == 2 and "no-such-id" in unknown.stderr
    none_marked = run("check", "-t", str(target), "--yes")
    assert none_marked.returncode == 2 and "no baseline for" in none_marked.stderr
    bad_engine = run("check", "--baseline", a, "-t", str(target), "-e", "nonesuch", "--yes")
    assert bad_engine.returncode == 2 and "unknown engine" in bad_engine.stderr
    bad_repeat = run("check", "--baseline", a, "-t", str(target), "--repeat", "0", "--yes")
    assert bad_repeat.returncode == 2
    for args in (("--fail-on", "p95"), ("--duration", "soon"), ("--file-size", "big"), ("--confirm", "-1")):
        out = run("check", "--baseline", a, "-t", str(target), *args, "--yes")
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, args
    assert list(target.iterdir()) == []
    assert len(list((labtui_home / "results").iterdir())) == 2


def test_baseline_of_several_runs_and_the_advice_for_a_single_one(labtui_home):
    store = Store(labtui_home)
    ids = [store.save_result(run_result(f"20261101-1{i}0000-r{i:03d}", {READ: [50_000 + 100 * i]}, minutes=10 * i))[0].id
           for i in range(3)]
    single = run("baseline", ids[0])
    assert single.returncode == 0 and "1 run per step" in single.stdout
    assert f"`labtui baseline {ids[0]} --more 2` runs each step 2 more times now (one result)" in \
        " ".join(single.stdout.split())
    added = json.loads(run("baseline", ids[0], *ids[1:], "--add", "--json").stdout)
    assert added["baseline"]["result"] == ids[0] and added["baseline"]["added"] == ids[1:]
    assert added["runs_per_step"] == 3
    listed = run("baseline")
    assert f"{ids[0]} + 2 more" in listed.stdout
    other = store.save_result(run_result("20261101-190000-zzzz", {READ: [1.0]}, profile_name="cdm-nvme"))[0]
    refused = run("baseline", ids[0], other.id, "--add")
    assert refused.returncode == 2 and "one profile on one disk" in refused.stderr
    # Marked again with one of its runs: the run left out is named, with the way to add it back.
    again = run("baseline", ids[0], ids[1])
    said = " ".join(again.stdout.split())
    assert again.returncode == 0 and f"added to it before, {ids[2]}, is no longer part of it" in said, said
    assert f"labtui baseline {ids[0]} {ids[2]} --add" in said, said
    assert json.loads(run("baseline", ids[0], "--json").stdout)["left_out"] == [ids[1]]
    assert json.loads(run("baseline", ids[0], "--json").stdout)["left_out"] == []


def test_compare_refuses_one_result_given_twice(labtui_home):
    """`compare A A` (or A and a prefix of it) is a slip: a result against itself shows no difference as if measured."""
    a, b = save_pair(labtui_home)
    for args in ((a, a), (a, a[:15]), (a, b, a[:12])):
        out = run("compare", *args)
        assert out.returncode == 2 and out.stdout == "", out.stdout
        assert out.stderr == f"labtui: error: {a} is given twice ({args[0]!r} and {args[-1]!r}): compare needs " \
                             "different results\n", out.stderr


def test_baseline_of_a_result_that_cannot_be_re_run_does_not_advise_more(labtui_home):
    """An import of fio on a whole device stores no test file size: `--more` cannot run it, so it is not advised."""
    from conftest import FIXTURES

    imported = run("import", "--json", str(FIXTURES / "fio-json" / "fio-3.6-randread4k-qd8-nj16-libaio-krbd.json"))
    rid = json.loads(imported.stdout)["results"][0]["id"]
    marked = run("baseline", rid)
    assert marked.returncode == 0 and "1 run per step" in marked.stdout
    said = " ".join(marked.stdout.split())
    assert f"labtui baseline {rid} --more" not in said, said
    refusal = run("baseline", rid, "--more", "2").stderr.strip().removeprefix("labtui: error: ")
    assert f"--more cannot add runs to it ({refusal})" in said, said
    assert f"labtui baseline {rid} OTHER... --add" in said, said
