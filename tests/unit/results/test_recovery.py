"""A result whose save was killed is not lost (labtui/results/recovery.py; issue 37, item 15): a SIGKILL
between a result's flush and its link left a complete `.ID.toml.*.tmp` that no command mentioned; the next
command puts it in place and says so (a real SIGKILL of a real save), and names one cut short."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import labtui_cmd
from factories import make_result
from labtui.results.result_file import result_to_toml

SUPPORT = Path(__file__).resolve().parents[2] / "support"  # factories, for the killed child


def history(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("history", *args), capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LABTUI_HOME": str(home), "COLUMNS": "200"})


KILL_BEFORE_LINK = """
import os, signal, sys
sys.path.insert(0, sys.argv[2])
from factories import make_result
from labtui.results import files
from labtui.results.store import Store

def killed(tmp, path):  # right after the flush, before the link: as a SIGKILL would land
    os.kill(os.getpid(), signal.SIGKILL)

files._link_exclusive = killed
Store(sys.argv[1]).save_result(make_result("20240501-103005-dead"))
"""


def test_a_result_whose_save_was_killed_is_recovered_by_the_next_command(tmp_path):
    home = tmp_path / "home"
    killed = subprocess.run([sys.executable, "-c", KILL_BEFORE_LINK, str(home), str(SUPPORT)], capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (temp,) = (home / "results").iterdir()
    assert temp.name.startswith(".20240501-103005-dead.toml.") and temp.name.endswith(".tmp")
    # A save killed while it wrote leaves a temp file cut short: named with its path, and kept.
    half = home / "results" / ".20240501-103005-cafe.toml.x1y2z3.tmp"
    text = result_to_toml(make_result("20240501-103005-cafe")).encode()
    half.write_bytes(text[: len(text) // 2])
    out = history(home, "--json")
    assert out.returncode == 0, out.stderr
    assert [r["id"] for r in json.loads(out.stdout)["results"]] == ["20240501-103005-dead"]
    err = " ".join(out.stderr.split())
    assert (f"recovered the result 20240501-103005-dead (completed) into {home / 'results' / '20240501-103005-dead.toml'}"
            ": a labtui was killed as it saved it") in err, err
    assert f"{half} is a result a labtui was saving when it was killed, and it is not whole (cut short after" in err
    assert sorted(p.name for p in (home / "results").iterdir()) == [half.name, "20240501-103005-dead.toml"]
    assert "recovered" not in history(home).stderr, "said once"




def test_a_fifo_named_like_a_half_saved_result_is_passed_over_not_waited_on(tmp_path):
    """Every command looks for half-saved results as it starts: a FIFO under such a name hung each of them."""
    from labtui.results.recovery import recover_saves
    from labtui.results.store import Store

    store = Store(tmp_path / "home")
    store.results_dir.mkdir(parents=True)
    fifo = store.results_dir / ".20240501-103005-dead.toml.x1y2z3.tmp"
    os.mkfifo(fifo)
    assert recover_saves(store) == [] and fifo.exists()
