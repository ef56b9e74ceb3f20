"""As root, labtui writes no file where another user could send it elsewhere (labtui.results.files.atomic_write).

Root exported results into /home/alice/out, drew a comparison or made a zpaq archive there: alice had put a link to another
directory in place of `out` (before the command, or between its check and its write), and root's file was
made, or replaced, in that other directory (/etc/cron.d, say), the command saying it wrote to hers. Played by
a real unprivileged user; the CLI as root, and the TUI's check of the path it is given.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import labtui_cmd, require_tool
from factories import make_result
from hostile_user import hostile_user, shared_place
from labtui.results.store import Store
from labtui.screens.export import check_directory, check_path


@pytest.fixture(scope="module")
def lab():
    with shared_place() as place, hostile_user("files", prefix="lt-guard") as user:
        theirs = place / "alice"
        theirs.mkdir()
        os.chown(theirs, user.uid, user.gid)
        elsewhere = place / "etc-cron.d"  # root's, as /etc/cron.d is
        elsewhere.mkdir(mode=0o755)
        user.sh(f"mkdir '{theirs}/real' && ln -s '{elsewhere}' '{theirs}/out'")  # `out` leads elsewhere
        yield place, user, theirs, elsewhere


def test_export_and_compare_write_nothing_through_a_directory_another_user_controls(lab, labtui_home):
    require_tool("zpaq")
    place, user, theirs, elsewhere = lab
    store = Store(labtui_home)
    store.save_result(make_result("20240501-103005-beef"))
    store.save_result(make_result("20240502-103005-cafe", minutes=60 * 24))
    runs = [labtui_cmd("export", "-f", "configmgr-csv", "--per-result", str(theirs / "out")),
            labtui_cmd("compare", "20240501-103005-beef", "20240502-103005-cafe", "--svg", str(theirs / "out" / "c.svg")),
            labtui_cmd("compare", "20240501-103005-beef", "20240502-103005-cafe", "--svg", str(theirs / "real" / "c.svg")),
            labtui_cmd("make-archive", str(theirs / "out" / "a.zpaq"), "--size", "64K")]
    for argv in runs:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=place)
        assert out.returncode == 2 and "Traceback" not in out.stderr, (argv, out.stderr)
        said = f"belongs to {user.name}: as root labtui writes no file where another user could send it elsewhere"
        assert f"{theirs}/real {said}" in out.stderr if "real" in argv[-1] else f"{theirs} {said}" in out.stderr, \
            out.stderr
        assert out.stderr.count("\n") == 1, out.stderr
    assert list(elsewhere.iterdir()) == [] and list((theirs / "real").iterdir()) == []
    # The TUI's Export and Compare screens say it as the path is typed, before Write.
    path, problem = check_path(str(theirs / "out" / "x.csv"), place)
    assert path is None and problem.startswith(f"{theirs} belongs to {user.name}: as root"), problem
    folder, problem = check_directory(str(theirs / "out"), place, ["20240501-103005-beef.csv"])
    assert folder is None and problem.startswith(f"{theirs} belongs to {user.name}: as root"), problem
    # Root's own directories, and /tmp's sticky kind on the way, are written as before.
    assert check_path(str(place / "mine.csv"), place) == (place / "mine.csv", "")
    out = subprocess.run(labtui_cmd("export", "-f", "configmgr-csv", "--per-result", str(place)),
                         capture_output=True, text=True, timeout=60, cwd=place)
    assert out.returncode == 0 and (place / "20240501-103005-beef.csv").exists(), out.stderr


@pytest.mark.parametrize("engine, key", [("fio", "fio_path"), ("diskspd", "diskspd_path")])
def test_a_configured_engine_program_another_user_can_change_is_not_run_as_root(lab, labtui_home, engine, key):
    """Root's own config.toml (its store only root can write) named the fio another user built: they changed it,
    and the next run as root ran their program. Refused in one line before anything runs or is written."""
    place, user, theirs, _elsewhere = lab
    mark = place / f"ran-{engine}"
    program = theirs / "real" / engine
    user.sh(f"printf '#!/bin/sh\\ntouch {mark}\\necho fio-3.33\\n' > '{program}' && chmod 755 '{program}'")
    (labtui_home / "config.toml").write_text(f'{key} = "{program}"\n')
    target = place / f"t-{engine}"
    target.mkdir()
    out = subprocess.run(labtui_cmd("run", "-e", engine, "-t", str(target), "-p", "quick-sanity", "--duration", "1s",
                                    "--file-size", "4M", "--yes"), capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert f"the setting {key} is '{program}': {program} belongs to {user.name}, who could change what it runs " \
           "as root" in out.stderr, out.stderr
    assert not mark.exists(), "the other user's program ran as root"
    assert list(target.iterdir()) == []
