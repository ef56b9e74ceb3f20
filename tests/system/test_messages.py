"""What labtui says when it will not go ahead: each message names what was wrong and what to do,
in one line, and nothing is written."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import time

import pytest

from conftest import brief_profile, labtui_cmd, require_root, require_tool
from loopdev import attach_free, detach


def run(*args, **kwargs):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=60, **kwargs)


def refusal(out) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    return out.stderr.strip()


def test_a_target_that_does_not_exist_is_refused_in_one_line_and_nothing_is_made(labtui_home, tmp_path):
    typo = tmp_path / "bnech" / "run1"
    message = refusal(run("run", "-t", str(typo), "--yes", "--duration", "1s", "--file-size", "1M"))
    assert message == (f"labtui: error: no such directory: {typo} ({typo.parent} does not exist): create it first, "
                       "or give a directory that exists")
    assert os.listdir(tmp_path) == ["labtui-home"] and not (labtui_home / "results").exists()


def test_fio_killed_by_a_signal_is_reported_as_such(labtui_home, disk_dir, tmp_path):
    require_tool("fio")
    # A fio that dies of SIGKILL at once, as the OOM killer would do it.
    fake = tmp_path / "fio"
    fake.write_text("#!/bin/sh\ncase \"$1\" in --version) echo fio-3.33;; *) kill -9 $$;; esac\n")
    fake.chmod(0o755)
    (labtui_home / "config.toml").write_text(f'fio_path = "{fake}"\n')
    target = disk_dir / "killed-fio"
    target.mkdir()
    out = run("run", "-e", "fio", "-t", str(target), "--duration", "1s", "--file-size", "16M", "--yes", "--json")
    assert out.returncode == 1, out.stderr
    assert "fio was killed by SIGKILL (signal 9)" in out.stderr.replace("\n", " ")
    assert "status -9" not in out.stderr


def test_a_dangling_symlink_target_is_named_before_anything_is_done(labtui_home, tmp_path):
    link = tmp_path / "target"
    link.symlink_to(tmp_path / "gone")
    message = refusal(run("run", "-t", str(link), "--yes"))
    assert f"{link} is a symbolic link to {tmp_path / 'gone'}, which does not exist" in message
    assert not (tmp_path / "gone").exists()
    deeper = refusal(run("run", "-t", str(link / "sub"), "--yes"))
    assert "is a symbolic link to" in deeper


def test_a_read_only_mount_is_called_read_only_not_permission_denied(labtui_home, tmp_path):
    require_root("mounting a read-only tmpfs")
    point = tmp_path / "ro"
    point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "labtui-test-ro", str(point)], check=True)
    try:
        message = refusal(run("run", "-t", str(point / "sub"), "--yes"))
    finally:
        subprocess.run(["umount", str(point)], check=True)
    assert f"{point} is mounted read-only: give a target on a writable file system" in message
    assert "permission denied" not in message


def test_a_kernel_file_system_is_called_that_not_full(labtui_home, tmp_path):
    # /proc reports 0 bytes free: "not enough free space" would send the person after disk space.
    message = refusal(run("run", "-t", "/proc/labtui-test", "--yes"))
    assert message == ("labtui: error: /proc is on proc, a kernel file system with no disk behind it: give a "
                       "directory on the disk to test")
    assert not os.path.exists("/proc/labtui-test")


def test_active_swap_is_called_swap_and_swapoff_is_what_to_do(labtui_home, tmp_path):
    require_root("a loop device as swap")
    for tool in ("losetup", "mkswap", "swapon", "swapoff"):
        require_tool(tool)
    image = tmp_path / "swap.img"
    with open(image, "wb") as handle:
        handle.truncate(32 * 1024 * 1024)
    attached = attach_free(image)
    assert attached.returncode == 0, attached.stderr
    device = attached.stdout.strip()
    try:
        subprocess.run(["mkswap", "-q", device], check=True, capture_output=True)
        if subprocess.run(["swapon", device], capture_output=True).returncode != 0:
            pytest.skip("swapon is not allowed here")
        try:
            message = refusal(run("run", "-t", device, "--destroy-data", device, "--yes"))
        finally:
            subprocess.run(["swapoff", device], check=True)
    finally:
        detach(device, image)
    assert f"refusing to write to {device}: it is active swap space" in message
    assert message.endswith(f"swapoff {device} first") and "mounted at swap" not in message


def answered_no(command: list[str]) -> tuple[int, str, str]:
    """`command` run with a terminal on stdin, answering n to its prompt: (exit code, stdout, stderr)."""
    primary, secondary = pty.openpty()  # a terminal on stdin: labtui asks before writing
    proc = subprocess.Popen(command, stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(secondary)
    try:
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            os.write(primary, b"n\n")
            try:
                out, err = proc.communicate(timeout=2)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = proc.communicate(timeout=5)
    finally:
        os.close(primary)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


def test_answering_no_says_nothing_was_written(labtui_home, disk_dir):
    target = disk_dir / "answered-no"
    target.mkdir()
    code, out, err = answered_no(labtui_cmd("run", "-t", str(target), "--duration", "1s", "--file-size", "16M"))
    assert code == 4  # its own code: not bad input (2), not a failed run (1)
    # The question on stderr beside the plan it asks about: stdout may be the --json a script reads.
    assert "Go ahead? [y/N]" in err and "Not started: nothing was written." in err and out == ""
    assert not any(target.iterdir())


def test_answering_no_to_baseline_more_says_what_it_would_have_run_and_exits_4(labtui_home, disk_dir):
    from labtui.results.store import Store
    from synthetic import READ, WRITE, run_result

    target = disk_dir / "more-no"
    target.mkdir()
    result = Store(labtui_home).save_result(run_result("20261101-120000-once", {READ: [50_000], WRITE: [40_000]}))[0]
    code, out, err = answered_no(labtui_cmd("baseline", result.id, "--more", "2", "-t", str(target)))
    assert code == 4, err
    said = " ".join(err.split())
    # What --more runs, said as it is: each step twice more, in one result (not "quick-sanity 2 more times").
    assert (f"labtui baseline: running each of quick-sanity's 2 steps 2 times (one result) on {target} with native, "
            f"about ") in said and f"to add 2 runs per step to the baseline of {result.id}" in said
    assert "labtui: not run: nothing was marked or added to the baseline" in said
    assert not any(target.iterdir())


def test_progress_into_a_pipe_keeps_long_paths_whole(labtui_home, disk_dir):
    target = disk_dir / ("a-directory-with-a-name-long-enough-to-pass-eighty-columns-" + "x" * 40)
    target.mkdir()
    profile = disk_dir / "brief.toml"
    profile.write_text('name = "brief"\nfile_size = "1MiB"\nfree_space_margin = "0"\n\n[[steps]]\nname = "r"\n'
                       'block_size = "4KiB"\nthreads = 1\noutstanding = 1\nduration = "200ms"\nwarmup = "0s"\n')
    out = run("run", "-p", str(profile), "-t", str(target), "--yes")
    assert out.returncode == 0, out.stderr
    assert f"labtui: brief on {target} with native" in out.stderr  # one line, not folded at 80 columns


def test_tags_are_comma_separated_as_in_the_tui(labtui_home, disk_dir, tmp_path):
    out = run("run", "-t", str(disk_dir), "--yes", "--json", "-p", str(brief_profile(tmp_path)),
              "--tag", "slot-2, after-swap", "--tag", "after-swap")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tags"] == ["slot-2", "after-swap"]


def test_answering_no_to_check_says_the_whole_plan_and_exits_4(labtui_home, disk_dir):
    from labtui.results.store import Store
    from synthetic import READ, WRITE, run_result

    target = disk_dir / "check-no"
    target.mkdir()
    result = Store(labtui_home).save_result(run_result("20261101-120000-base", {READ: [50_000] * 3,
                                                                                WRITE: [40_000] * 3}))[0]
    code, out, err = answered_no(labtui_cmd("check", "--baseline", result.id, "-t", str(target), "--file-size", "16M"))
    assert code == 4, err
    said = " ".join(err.split())
    assert "the plan: run each of quick-sanity's 2 steps 3 times (one result) on " in said
    assert "if those look slower or are too noisy to tell, 8 more runs of each step settle it (about " in said
    # The question itself says what may follow the first pass, not only its own time.
    assert ", then 8 more times (about " in said and ") if that cannot decide." in said
    assert not any(target.iterdir())
