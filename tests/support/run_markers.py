"""A run's own directory and test file with the marker a run makes for them, as a killed run leaves them."""

from __future__ import annotations

from pathlib import Path

from labtui.run import leftovers


def marked_file(tmp_path: Path, run_id: str) -> tuple[Path, Path, leftovers.RunMarker]:
    """A run's own directory and test file with the marker a run makes for them: (markers directory,
    test file, marker)."""
    running = tmp_path / "running"
    run_dir = tmp_path / f"labtui-{run_id}"
    run_dir.mkdir(mode=0o700)
    made = run_dir / f"labtui-{run_id}.dat"
    made.write_bytes(b"labtui's")
    marker = leftovers.RunMarker.create(running, run_id, run_dir)
    marker.record_dir(run_dir.stat().st_dev, run_dir.stat().st_ino)
    marker.record(made.stat().st_dev, made.stat().st_ino, made.stat().st_size)
    return running, made, marker
