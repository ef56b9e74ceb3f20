"""What a job of a kept fio report ran, read back from its options: labtui's Step, command line and target.

For the importer (labtui.results.imports) and fio's client mode (labtui.fleet.fio_client): fio's
report echoes the job's options (and the global ones) as text, in fio's own units.
"""

from __future__ import annotations

import re
import shlex

from labtui.engine.fio.parse import NO_SIZES, BlockSizes, direction_totals, job_name
from labtui.errors import ValidationError
from labtui.model.profile import Step
from labtui.units import parse_duration, parse_size


def job_options(job: dict, report: dict) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The job's options over the report's global ones, and every value of a repeated option."""
    merged: dict[str, str] = {}
    repeated: dict[str, list[str]] = {}
    glob = report.get("global options")
    if isinstance(glob, list):
        # client/server with several servers: one global table per server, with its address
        host, port = job.get("hostname"), job.get("port")
        match = [g for g in glob if isinstance(g, dict) and g.get("hostname") == host and str(g.get("port")) == str(port)]
        glob = match[0] if match else next((g for g in glob if isinstance(g, dict)), None)
    for table in (glob, job.get("job options")):
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if isinstance(key, str) and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                merged[key] = str(value)
        for key, values in getattr(table, "repeated", {}).items():
            repeated[key] = [str(v) for v in values if isinstance(v, (str, int, float))]
    return merged, repeated


# ASCII, as fio reads its options: a str pattern's \d (and str.isdigit) also take "٤" or "４".
_SIZE_TOKEN = re.compile(r"\d+(?:\.\d+)?\s*(?:[kmgtp]i?b?|b)?", re.I | re.ASCII)
_TIME_TOKEN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*$", re.I | re.ASCII)
_TIME_UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0,
               "h": 3600.0, "d": 86400.0}


def fio_size(value: str | None) -> int | None:
    """A fio size option's first size ("4k", "128k,64k", "4k-16k", "1m"), in bytes (k = 1024)."""
    if not value:
        return None
    value = value.strip()
    match = _SIZE_TOKEN.match(value)
    if not match or value[match.end() : match.end() + 1] not in ("", ",", "-", ":"):
        return None  # e.g. "100%": a share of the device, not a size
    try:
        return parse_size(match.group(0).replace(" ", ""), allow_zero=True)
    except ValidationError:
        return None


def fio_seconds(value: str | None) -> float | None:
    """A fio time option ("10" seconds, "5m", "500ms"), in seconds."""
    if not value:
        return None
    match = _TIME_TOKEN.match(value)
    if not match:
        return None
    seconds = float(match.group(1)) * _TIME_UNITS[(match.group(2) or "s").lower()]
    try:
        return parse_duration(round(seconds, 6), allow_zero=True)
    except ValidationError:
        return None


def _int_option(options: dict[str, str], key: str, default: int) -> int:
    value = options.get(key, "")
    return int(value) if value.isascii() and value.isdigit() and 0 < int(value) < 1_000_000 else default


def _flag(options: dict[str, str], key: str) -> bool | None:
    if key not in options:
        return None
    return options[key].strip().lower() in ("", "1", "true", "yes", "on")


_MIXED_SIZES = ("bsrange", "blocksize_range", "bssplit", "bs_unaligned", "blocksize_unaligned")


def block_sizes(job: dict, report: dict) -> BlockSizes:
    """Each direction's block size where every I/O of it is one size (fio's `bs=4k` or `bs=128k,64k`;
    its default 4 KiB); None where the job mixes sizes (bsrange, bssplit, a range in bs)."""
    options, _ = job_options(job, report)
    if any(key in options for key in _MIXED_SIZES):
        return NO_SIZES
    text = options.get("bs") or options.get("blocksize")
    if not text:
        return (4096, 4096)
    parts = [part.strip() for part in text.split(",")]

    def one(part: str) -> int | None:
        if not part or any(c in part for c in "-:/"):
            return None
        return fio_size(part)

    read = one(parts[0])
    return read, (one(parts[1]) if len(parts) > 1 else read)


def job_workload(job: dict, report: dict, measured_seconds: float, legacy: bool = False) -> Step:
    """The step a job ran, recovered from its options (fio's defaults where it did not say)."""
    options, _ = job_options(job, report)
    rw = (options.get("rw") or options.get("readwrite") or "read").split(":")[0].strip().lower()
    pattern = "random" if rw.startswith("rand") else "sequential"
    if rw in ("read", "randread"):
        write_percent = 0
    elif rw in ("write", "randwrite", "trimwrite", "randtrimwrite"):
        write_percent = 100
    else:
        read = _int_option(options, "rwmixread", -1)
        written = _int_option(options, "rwmixwrite", -1)
        write_percent = 100 - read if 0 <= read <= 100 else (written if 0 <= written <= 100 else 50)
    read_size, write_size = block_sizes(job, report)
    block = (write_size if write_percent == 100 else read_size) or read_size or write_size
    if not block:  # sizes that vary: their mean, by the completed I/Os' bytes
        r_ios, r_bytes, _, _ = direction_totals(job, "read", legacy, "job")
        w_ios, w_bytes, _, _ = direction_totals(job, "write", legacy, "job")
        ios = r_ios + w_ios
        block = (r_bytes + w_bytes) // ios if ios else 4096  # fio's default bs
    duration = fio_seconds(options.get("runtime")) or round(measured_seconds, 6)
    direct = _flag(options, "direct")
    buffered = _flag(options, "buffered")
    cache = "off" if direct or buffered is False else "on"
    return Step(
        name=job_name(job),
        block_size=block,
        pattern=pattern,
        write_percent=write_percent,
        threads=_int_option(options, "numjobs", 1),
        outstanding=_int_option(options, "iodepth", 1),
        duration=duration,
        warmup=fio_seconds(options.get("ramp_time")) or 0.0,
        cooldown=0.0,
        cache=cache,
        latency=True,
        # sync=1 / sync / dsync: every write waits for the media (fio's O_SYNC or O_DSYNC).
        write_through=str(options.get("sync", "")).strip().lower() in ("1", "true", "sync", "dsync"),
    )


def job_command_line(job: dict, report: dict) -> str:
    """The job's options as an equivalent fio command line (fio's JSON does not keep the real one)."""
    options, repeated = job_options(job, report)
    options.pop("hostname", None)
    options.pop("port", None)
    parts = ["fio", f"--name={shlex.quote(job_name(job))}"]
    for key, value in options.items():
        if key == "name":
            continue
        values = repeated.get(key) or [value]
        for item in values:
            parts.append(f"--{key}" if item == "" else f"--{key}={shlex.quote(item)}")
    return " ".join(parts)


def job_target(job: dict, report: dict) -> str | None:
    """The file(s) or directory the job ran on, as the options name them."""
    options, repeated = job_options(job, report)
    names = repeated.get("filename") or ([options["filename"]] if options.get("filename") else [])
    if names:
        return ", ".join(dict.fromkeys(names))
    return options.get("directory") or None
