"""`labtui run --all-volumes` (labtui/commands/sweep.py): asking before it writes on every volume."""

import io

from labtui.commands.sweep import run_sweep
from labtui.errors import ExitCode
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.request import RunRequest
from volumes import DISKS, MIB, vol


def test_echo_n_into_a_sweep_writes_on_no_volume(tmp_path, monkeypatch, capsys):
    # Off a terminal the sweep asked nothing and wrote a test file on every volume.
    volumes = []
    for name in ("a", "b"):
        (tmp_path / name / "labtui").mkdir(parents=True)
        volumes.append(vol(str(tmp_path / name), device="/dev/sda1", disk="sda", dev_id=f"fake:{name}"))
    tiny = Profile(name="tiny", title="tiny", file_size=16 * MIB, free_space_margin=0, steps=(
        Step(name="Write 64K random", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.5,
             warmup=0.0),))
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code = run_sweep(tiny, Store(tmp_path / "home"), RunRequest(all_volumes=True), as_json=True, yes=False,
                     volumes=volumes, disks=DISKS, home=tmp_path / "nowhere")
    out, err = capsys.readouterr()
    assert code == ExitCode.DECLINED and out == ""
    assert "on 2 volumes, writing a 16MiB test file on each" in err and "Go ahead? [y/N] n (read from stdin)" in err
    assert not list((tmp_path / "a" / "labtui").iterdir()) and not list((tmp_path / "b" / "labtui").iterdir())
    assert not (tmp_path / "home" / "results").exists()
