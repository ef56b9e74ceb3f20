"""What labtui sends fio's servers and reads back from them: job files, and the server's lines and reports.

The job files: a step as fio job options in a file (fio reads `$`, `;` and `#` in one as its own
syntax, so a value holding one is refused, not sent), the probe that asks a server what it is,
and the small job that removes a test file left after a stop. Then what comes back: the probe's
facts, each host's entries of the client's JSON, the server's messages and faults. The client
that runs them is labtui.fleet.fio_client.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from labtui.engine.fio import parse as fr
from labtui.engine.fio.engine import fio_arguments
from labtui.model.profile import Profile, Step
from labtui.printable import printable

JOB_NAME = "labtui"
# fio_arguments' options that are the client's own command line here, not the job's.
_CLIENT_OPTIONS = ("eta", "status-interval", "output-format", "name", "filename")
_PROBE_LINE = re.compile(r"hostname=(?P<hostname>[^,]*), be=\d+, (?P<bits>\d+)-bit, os=(?P<os>[^,]*), "
                         r"arch=(?P<arch>[^,]*), fio=(?P<fio>[^,]*),")
_SERVER_TEXT = re.compile(r"^<[^>]*> ?")
_JOB_FILE_SPECIAL = "$;#\n\r"


def client_address(server: tuple[str, int]) -> str:
    """fio's --client= value: "ip:10.0.0.5,8765", "ip6:fd00::5,8765", "bench-01.lab,8765"."""
    address, port = server
    if ":" in address:
        return f"ip6:{address},{port}"
    if re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", address):
        return f"ip:{address},{port}"
    return f"{address},{port}"


def refusal(profile: Profile, targets: dict[str, str]) -> str | None:
    """Why the profile or a target cannot run through fio --client (one line), or None."""
    commands = [s.name for s in profile.steps if not s.is_io]
    if commands:
        return (f"-e fio with fio_server hosts runs I/O steps only: {commands[0]!r} is a command step (fio's server "
                "runs fio jobs, not labtui's commands); run it over ssh instead")
    steady = [s.name for s in profile.steps if s.steady is not None]
    if steady:
        return (f"-e fio with fio_server hosts cannot run the steady-state step {steady[0]!r} (the client sees fio's "
                "reports only when a step ends); run it over ssh instead")
    if profile.precondition:
        return "-e fio with fio_server hosts does not precondition; run this profile over ssh instead"
    for name, target in sorted(targets.items()):
        if not target.startswith("/"):
            return f"{name}: the target {target!r} must be an absolute directory on the server (fio --client runs there)"
        odd = next((c for c in target if c in _JOB_FILE_SPECIAL or not c.isprintable()), None)
        if odd is not None:
            # A job file's line: a newline would start another option, ${...} and $ncpus are expanded.
            return f"{name}: the target {target!r} holds {odd!r}, which fio's job file would not read as a path"
    raw = sorted(name for name, target in targets.items() if target.startswith("/dev/"))
    if raw:
        return (f"{raw[0]}: raw devices are not run through fio --client (labtui's consent check cannot reach the "
                "server): give a directory on a file system there")
    return None


def job_options(step: Step, directory: str, file_name: str, file_size: int, *, linux: bool,
                unlink: bool) -> list[str]:
    """The step's fio job as job-file lines: fio_arguments' translation, in a directory on the server."""
    lines = [f"directory={_path(directory)}", f"filename={file_name}", "unique_filename=0"]
    for arg in fio_arguments(step, "-", file_size, linux=linux)[1:]:
        key, _, value = arg.removeprefix("--").partition("=")
        if key in _CLIENT_OPTIONS:
            continue
        lines.append(f"{key}={value}" if value else key)
    if unlink:
        lines.append("unlink=1")
    return lines


def job_file(lines: Sequence[str], name: str = JOB_NAME) -> str:
    return f"[{name}]\n" + "".join(f"{line}\n" for line in lines)


def probe_job(directory: str) -> list[str]:
    """A job that does no I/O (the null engine) and creates nothing: fio checks `directory` as it
    reads the job, and the client prints the server's probe line (its name, OS, fio version)."""
    return [f"directory={_path(directory)}", "ioengine=null", "size=4k", "rw=read"]


def cleanup_job(directory: str, file_name: str) -> list[str]:
    """A job that reads one block of the test file and removes it (fio's unlink=1); where the file
    is gone already it writes a 4 KiB one and removes that."""
    return [f"directory={_path(directory)}", f"filename={file_name}", "unique_filename=0", "ioengine=psync", "rw=read",
            "bs=4k", "size=4k", "io_size=4k", "unlink=1"]


# --------------------------------------------------------------------------- fio's output


@dataclass(frozen=True)
class ServerFacts:
    """What fio's probe reply says of the server."""

    hostname: str
    os: str
    arch: str
    bits: int
    fio: str


def probe_facts(lines: Sequence[str]) -> ServerFacts | None:
    for line in lines:
        match = _PROBE_LINE.search(line)
        if match:
            return ServerFacts(printable(match["hostname"]), printable(match["os"]), printable(match["arch"]),
                               int(match["bits"]), printable(match["fio"]).removeprefix("fio-"))
    return None


def client_entries(report: dict) -> dict[tuple[str, int | None], list[dict]]:
    """A client-mode report's `client_stats`, per server (hostname and port as the client named
    it), in order: each interval report, the final one last. The "All clients" sum is left out."""
    entries: dict[tuple[str, int | None], list[dict]] = {}
    for job in fr.report_jobs(report):
        if job.get("jobname") == fr.AGGREGATE_JOB:
            continue
        port = job.get("port")
        key = (str(job.get("hostname", "")), port if isinstance(port, int) and not isinstance(port, bool) else None)
        entries.setdefault(key, []).append(job)
    return entries


def server_disks(report: dict, hostname: str, port: int | None) -> list[str]:
    """The disks the server's fio saw under the job (its `disk_util`), in its order, each once."""
    disks: list[str] = []
    util = report.get("disk_util")
    for entry in util if isinstance(util, list) else ():
        if not isinstance(entry, dict) or str(entry.get("hostname", "")) != hostname:
            continue
        if port is not None and entry.get("port") not in (None, port):
            continue
        name = entry.get("name")
        if isinstance(name, str) and name and printable(name) not in disks:
            disks.append(printable(name))
    return disks


def messages(lines: Sequence[str]) -> list[str]:
    """fio's own lines (the server's with their "<name>" prefix taken off), blank ones left out."""
    out = []
    for line in lines:
        text = printable(_SERVER_TEXT.sub("", line.strip())).strip()
        if text and not _PROBE_LINE.search(text):
            out.append(text)
    return out


def fault_reason(lines: Sequence[str], where: str) -> str | None:
    """fio's own words for a server it could not reach or talk to, made one line; None if it said none."""
    said = messages(lines)
    mismatch = next((t for t in said if "version mismatch" in t), None) or next(
        (t for t in said if "bad server cmd version" in t), None)
    if mismatch is not None:
        return (f"the fio server at {where} speaks another protocol version ({mismatch.removeprefix('fio: ')}): "
                "install the same fio release here and on the server")
    connect = next((t for t in said if t.startswith("fio: connect") or "failed to connect" in t), None)
    if connect is not None:
        return f"fio could not connect to {where}: {connect.removeprefix('fio: connect: ').removeprefix('fio: ')}"
    if any(t.startswith("client: host=") and "disconnected" in t for t in said):
        return f"the fio server at {where} dropped the connection"
    timeout = next((t for t in said if "timed out" in t or "timeout on cmd" in t), None)
    if timeout is not None:
        return f"the fio server at {where} stopped answering ({timeout})"
    return None


def job_errors(lines: Sequence[str]) -> list[str]:
    """The server's error lines about the job ("fio: ... is not a directory", "fio: pid=..., err=...")."""
    return [t.removeprefix("fio: ") for t in messages(lines)
            if t.startswith("fio:") and "terminating on signal" not in t]


def _path(directory: str) -> str:
    return directory.replace(":", "\\:")  # fio reads ':' in directory= as a separator between several
