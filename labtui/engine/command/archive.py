"""Test archives for the zpaq-extract profile: incompressible generated files, packed with zpaq.

The seed post timed the extraction of a 200 GB archive; `make_archive` builds one of any size so
anyone can repeat the test. The files hold random data (engine.testfile.RandomBlocks: every 4 KiB
block different, so zpaq can neither compress nor deduplicate it), and they are written and
added a batch at a time, then deleted: the disk needs room for the archive plus one batch, not
for the archive twice. The archive's name is claimed before anything is written (it is never
overwritten), and whatever happens the temporary files go; an unfinished archive goes too.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from labtui.engine.command.engine import missing_program
from labtui.engine.testfile import RandomBlocks
from labtui.errors import LabtuiError, ValidationError
from labtui.machine import programs
from labtui.machine.paths import missing_refusal, nearest_existing, shown
from labtui.units import format_size, human_size

MAX_FILES = 100_000
BATCH_BYTES = 1024**3  # files are added to the archive about this many bytes at a time
CHUNK = 4 * 1024 * 1024
DATA_DIR = "labtui-test-data"  # the top directory inside the archive
# zpaq stores random data as it is, plus a little per block; this covers it with room to spare.
OVERHEAD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ArchivePlan:
    out: Path
    size: int  # bytes of data in all files together
    files: int
    method: int  # zpaq's -method (0..5)
    zpaq: str  # the zpaq program

    @property
    def file_sizes(self) -> list[int]:
        """Equal shares of `size`; the first files take the remainder, one byte each."""
        share, extra = divmod(self.size, self.files)
        return [share + (1 if i < extra else 0) for i in range(self.files)]

    @property
    def batch_bytes(self) -> int:
        """The most file data on disk at once (besides the archive)."""
        largest, current = 0, 0
        for size in self.file_sizes:
            current += size
            if current >= BATCH_BYTES:
                largest, current = max(largest, current), 0
        return max(largest, current)


@dataclass(frozen=True)
class ArchiveMade:
    path: Path
    size: int  # bytes of data in it
    files: int
    archive_bytes: int
    seconds: float


Progress = Callable[[str, int, int], None]  # (what is happening, bytes done, bytes in all)


def plan_archive(out: str | os.PathLike, size: int, files: int, method: int = 1, zpaq: str = "zpaq") -> ArchivePlan:
    """Check everything before a byte is written; LabtuiError with a one-line reason otherwise."""
    path = Path(os.path.abspath(os.path.expanduser(out)))
    _existing, missing = nearest_existing(path)  # a name or path longer than the system takes, a loop of links
    if path.is_dir():  # was "must end in .zpaq, got 'tmp'" for /tmp: the archive's file name was left out
        raise ValidationError(f"{shown(path)} is a directory: give the archive's file name in it, e.g. "
                              f"{shown(path / 'test.zpaq')}")
    if path.suffix != ".zpaq":
        raise ValidationError(f"the archive's name must end in .zpaq (zpaq adds it otherwise), got {shown(path.name)!r}")
    if any(c in path.name for c in "*?"):
        raise ValidationError(f"{path.name!r}: zpaq reads * and ? in an archive name as parts of a multi-part archive")
    if os.path.lexists(path):
        raise LabtuiError(f"{shown(path)} already exists: labtui make-archive never overwrites (remove it or pick another "
                          "name)")
    if not 1 <= files <= MAX_FILES:
        raise ValidationError(f"must be 1..{MAX_FILES}, got {files}", "--files")
    if size < files:
        raise ValidationError(f"{size} bytes cannot make {files} files of at least one byte", "--size")
    if not 0 <= method <= 5:
        raise ValidationError(f"zpaq's methods are 0..5, got {method}", "--method")
    reason = missing_program(zpaq)
    if reason:
        raise LabtuiError(f"making an archive needs zpaq, but {reason}")
    zpaq = programs.find(zpaq) or zpaq  # the program checked is the one run (labtui.machine.programs)
    directory = path.parent
    refusal = missing_refusal(directory, missing[1:], None)  # "/nonexist is not a directory" sent no one to mkdir
    if refusal:
        raise LabtuiError(refusal)
    if not directory.is_dir():
        raise LabtuiError(f"{shown(directory)} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise LabtuiError(f"permission denied: cannot write in {shown(directory)}")
    plan = ArchivePlan(path, size, files, method, zpaq)
    need = size + plan.batch_bytes + size // 512 + OVERHEAD_BYTES
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    if free < need:
        raise LabtuiError(
            f"not enough free space in {shown(directory)}: a {format_size(size)} archive needs about {human_size(need)} "
            f"(the archive plus {human_size(plan.batch_bytes)} of files at a time), {human_size(free)} is free"
        )
    return plan


def make_archive(plan: ArchivePlan, progress: Progress | None = None) -> ArchiveMade:
    """Build the archive `plan` describes. On any error or interruption nothing is left behind."""
    began = time.monotonic()
    report = progress or (lambda what, done, total: None)
    # Claim the name first: no other process can slip a file in, and an unfinished archive is ours to remove.
    try:
        os.close(os.open(plan.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        raise LabtuiError(f"{shown(plan.out)} already exists: labtui make-archive never overwrites") from None
    except OSError as exc:
        raise LabtuiError(f"cannot create {shown(plan.out)}: {exc.strerror or exc}") from exc
    work = Path(tempfile.mkdtemp(prefix=".labtui-make-archive-", dir=plan.out.parent))
    finished = False
    try:
        (work / DATA_DIR).mkdir()
        data = RandomBlocks()
        buffer = mmap.mmap(-1, CHUNK)
        view = memoryview(buffer)
        offset = 0  # across all files, so no block repeats anywhere in the archive
        batch: list[str] = []
        batch_bytes = 0
        width = len(str(plan.files))
        written = False

        def phase(what: str) -> Callable[[int], None]:
            return lambda done: report(what, done, plan.size)

        try:
            for number, size in enumerate(plan.file_sizes, 1):
                name = f"{DATA_DIR}/file-{number:0{width}d}.bin"
                what = f"writing file {number} of {plan.files}"
                offset = _write_file(work / name, size, data, view, offset, phase(what))
                batch.append(name)
                batch_bytes += size
                if batch_bytes >= BATCH_BYTES or number == plan.files:
                    what = f"adding {len(batch)} file{'s' if len(batch) > 1 else ''} to the archive"
                    _zpaq_add(plan, work, batch, phase(what))
                    for done in batch:
                        (work / done).unlink()
                    batch, batch_bytes = [], 0
            written = True
        finally:
            view.release()
            try:
                buffer.close()
            except BufferError:
                # An interrupt landed while a frame held a view of the buffer (RandomBlocks.stamp's
                # cast): the view goes with that frame, the buffer with it. Raising here would put
                # BufferError in place of the interrupt (or the error) on its way out.
                if written:
                    raise
        report("done", plan.size, plan.size)
        finished = True
    except OSError as exc:
        raise LabtuiError(f"cannot make {plan.out}: {exc.strerror or exc}"
                          + (f" ({exc.filename})" if exc.filename else "")) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if not finished:
            with contextlib.suppress(OSError):
                plan.out.unlink()
    return ArchiveMade(plan.out, plan.size, plan.files, plan.out.stat().st_size, time.monotonic() - began)


def _write_file(path: Path, size: int, data: RandomBlocks, view: memoryview, offset: int,
                progress: Callable[[int], None]) -> int:
    """Write `size` random bytes (the data for archive `offset` on); return the offset after them."""
    with open(path, "wb", buffering=0) as handle:
        left = size
        while left:
            progress(offset)
            n = min(CHUNK, left)
            # Released on the way out, even when Ctrl+C lands inside fill() or write(): a slice
            # left exported would make closing the shared buffer fail and hide the interrupt.
            with view[:n] as chunk:
                data.fill(chunk, offset)
                handle.write(chunk)
            offset += n
            left -= n
    return offset


def _zpaq_add(plan: ArchivePlan, work: Path, names: list[str], progress: Callable[[int], None]) -> None:
    """`zpaq a OUT files... -method N`, in its own process group (stopped with it on Ctrl+C).

    Progress is the archive's size as zpaq appends to it. zpaq's output goes to a file, not a
    pipe nobody reads while waiting (a full pipe would stall it).
    """
    argv = [plan.zpaq, "a", str(plan.out), *names, "-method", str(plan.method)]
    log = work / "zpaq.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen(argv, cwd=work, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        while True:
            with contextlib.suppress(OSError):
                progress(plan.out.stat().st_size)
            try:
                proc.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log.read_text("utf-8", "replace")
    if proc.returncode != 0 or "(with errors)" in text:
        lines = [line for line in text.splitlines() if line.strip()]
        detail = next((line for line in reversed(lines) if "error" in line.lower()), lines[-1] if lines else "")
        raise LabtuiError(f"zpaq could not add to {plan.out} (exit status {proc.returncode}): {detail.strip()}")
