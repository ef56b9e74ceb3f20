"""What `smartctl -j` (smartmontools) says of a drive: its temperature, thresholds, health and wear.

The key names are smartmontools' own (its JSON writer: src/nvmeprint.cpp, src/ataprint.cpp):

- NVMe: `nvme_smart_health_information_log` {temperature, critical_warning, available_spare,
  percentage_used, data_units_written (units of 1000 x 512 bytes), unsafe_shutdowns, media_errors,
  num_err_log_entries, warning_temp_time and critical_comp_time (minutes), and where the drive reports
  them thermal_mgmt_temperature_{1,2}_transition_count and _total_time (seconds)}; the thresholds
  from the controller's identify data as `temperature` {op_limit_max (WCTEMP), critical_limit_max
  (CCTEMP)}; the critical warning's bits as `smart_status.nvme` {spare_below_threshold,
  temperature_above_or_below_threshold, reliability_degraded, media_read_only, ...}.
- ATA: `temperature.current` (from attribute 194 or 190, or the SCT status), `ata_smart_attributes.table`
  [{id, name, value, thresh, raw: {value, string}}] (5 reallocated, 197 pending, 198 offline
  uncorrectable, 174 / 192 unsafe shutdowns), `ata_smart_error_log.summary.count`.
- Both: `smart_status.passed`, `model_name`, `firmware_version`, `smartctl.exit_status` (a bit mask:
  bit 0 the command line did not parse, bit 1 the device could not be opened or identified).

Parsing is pure (text in, SmartReport out), tested on real outputs; `ask` runs the program, never
through a shell, with a timeout. Every string is made printable: a drive names its own model.
"""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from typing import Any

from labtui.machine import programs
from labtui.model.result import celsius
from labtui.printable import printable

DATA_UNIT = 512_000  # NVMe "data units": thousands of 512-byte blocks
TIMEOUT = 10.0  # seconds: a drive that does not answer in that long is left unread, the run goes on

# NVMe critical warning bits (smart_status.nvme), in the words a lab person reads.
_NVME_WARNINGS = (
    ("spare_below_threshold", "available spare below its threshold"),
    ("temperature_above_or_below_threshold", "temperature beyond its threshold"),
    ("reliability_degraded", "reliability degraded"),
    ("media_read_only", "media placed in read-only mode"),
    ("volatile_memory_backup_failed", "volatile memory backup failed"),
    ("persistent_memory_region_unreliable", "persistent memory region unreliable"),
)
_BITS = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20)


@dataclass(frozen=True)
class SmartReport:
    """One answer of smartctl about one drive. None: the drive (or this smartctl) did not say."""

    protocol: str | None = None  # "NVMe", "ATA", "SCSI"
    model: str | None = None
    firmware: str | None = None
    serial: str | None = None
    temperature_c: float | None = None
    warning_c: float | None = None
    critical_c: float | None = None
    critical_warning: str | None = None  # in words; None where the drive warns of nothing
    health_passed: bool | None = None
    percentage_used: int | None = None
    available_spare: int | None = None
    media_errors: int | None = None
    error_log_entries: int | None = None
    unsafe_shutdowns: int | None = None
    data_written_bytes: int | None = None
    warning_temp_minutes: int | None = None
    critical_temp_minutes: int | None = None
    thermal_transitions: int | None = None
    thermal_seconds: int | None = None


class SmartctlError(ValueError):
    """smartctl answered, but not about a drive (it could not open or identify it): its own message."""


def parse(text: str) -> SmartReport:
    """A `smartctl -j` answer as a SmartReport; SmartctlError (with smartctl's message) where it read no drive,
    ValueError where the text is not smartctl's JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # a number of 5,000 digits, arrays nested 100,000 deep
        raise ValueError(f"not smartctl's JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict) or not isinstance(data.get("smartctl"), dict):
        raise ValueError("not smartctl's JSON (no 'smartctl' table)")
    status = _int(data["smartctl"].get("exit_status")) or 0
    if status & 0x03 or not any(k in data for k in ("model_name", "device", "nvme_smart_health_information_log")):
        messages = data["smartctl"].get("messages") or []
        said = next((m.get("string") for m in messages if isinstance(m, dict) and m.get("string")), None)
        raise SmartctlError(printable(str(said), one_line=True) if said else f"smartctl exit status {status}")
    protocol = _str(_get(data, "device", "protocol"))
    report = _nvme(data) if "nvme_smart_health_information_log" in data else _ata(data)
    fallback = report.pop("temperature_c", None)
    current = _celsius(_get(data, "temperature", "current"))
    return SmartReport(
        protocol=protocol,
        model=_str(data.get("model_name")),
        firmware=_str(data.get("firmware_version")),
        serial=_str(data.get("serial_number")),
        temperature_c=current if current is not None else fallback,
        warning_c=_celsius(_get(data, "temperature", "op_limit_max")),
        critical_c=_celsius(_get(data, "temperature", "critical_limit_max")),
        health_passed=_bool(_get(data, "smart_status", "passed")),
        **report,
    )


def _nvme(data: dict[str, Any]) -> dict[str, Any]:
    log = data["nvme_smart_health_information_log"]
    if not isinstance(log, dict):
        return {}
    counts = [_int(log.get(f"thermal_mgmt_temperature_{n}_transition_count")) for n in (1, 2)]
    times = [_int(log.get(f"thermal_mgmt_temperature_{n}_total_time")) for n in (1, 2)]
    units = _int(log.get("data_units_written"))
    found: dict[str, Any] = {
        "critical_warning": _nvme_warning(_int(log.get("critical_warning")), _get(data, "smart_status", "nvme")),
        "percentage_used": _int(log.get("percentage_used")),
        "available_spare": _int(log.get("available_spare")),
        "media_errors": _int(log.get("media_errors")),
        "error_log_entries": _int(log.get("num_err_log_entries")),
        "unsafe_shutdowns": _int(log.get("unsafe_shutdowns")),
        "data_written_bytes": units * DATA_UNIT if units is not None else None,
        "warning_temp_minutes": _int(log.get("warning_temp_time")),
        "critical_temp_minutes": _int(log.get("critical_comp_time")),
        "thermal_transitions": sum(c for c in counts if c is not None) if any(c is not None for c in counts) else None,
        "thermal_seconds": sum(t for t in times if t is not None) if any(t is not None for t in times) else None,
    }
    found["temperature_c"] = _celsius(log.get("temperature"))  # the composite, where `temperature` lacks it
    return found


def _nvme_warning(value: int | None, bits: Any) -> str | None:
    """The critical warning byte in words, from smartctl's decoded bits where it gave them."""
    if not value:
        return None
    said = [words for (key, words), bit in zip(_NVME_WARNINGS, _BITS)
            if (isinstance(bits, dict) and bits.get(key) is True) or (not isinstance(bits, dict) and value & bit)]
    return ", ".join(said) if said else f"critical warning 0x{value:02x}"


_ATA_MEDIA = (5, 197, 198)  # reallocated sectors, pending sectors, offline uncorrectable
_ATA_UNSAFE = (174, 192)  # unsafe shutdown count (SSDs), power-off retract count (HDDs)


def _ata(data: dict[str, Any]) -> dict[str, Any]:
    table = _get(data, "ata_smart_attributes", "table")
    raw: dict[int, int] = {}
    failing: list[str] = []
    for attribute in table if isinstance(table, list) else []:
        if not isinstance(attribute, dict):
            continue
        ident, value = _int(attribute.get("id")), _int(_get(attribute, "raw", "value"))
        if ident is not None and value is not None and ident not in raw:
            raw[ident] = value
        current, thresh = _int(attribute.get("value")), _int(attribute.get("thresh"))
        if current is not None and thresh and current <= thresh:
            failing.append(_str(attribute.get("name")) or f"attribute {ident}")
    media = [raw[i] for i in _ATA_MEDIA if i in raw]
    unsafe = next((raw[i] for i in _ATA_UNSAFE if i in raw), None)
    found: dict[str, Any] = {
        "media_errors": sum(media) if media else None,
        "error_log_entries": _int(_get(data, "ata_smart_error_log", "summary", "count")),
        "unsafe_shutdowns": unsafe,
        # Attribute 241's unit is the vendor's (LBAs, 32 MiB, GiB: Intel's S3520 counts 32 MiB under the name
        # Total_LBAs_Written), so no byte count is made of it.
        "critical_warning": ("attributes at or below their threshold: " + ", ".join(failing[:3])) if failing else None,
    }
    temp = next((raw[i] & 0xFF for i in (194, 190) if i in raw), None)  # the raw's low byte is °C
    found["temperature_c"] = _celsius(temp)
    return found


def ask(device: str, smartctl: str | None = None, timeout: float = TIMEOUT, brief: bool = False) -> SmartReport:
    """Run `smartctl -j -a DEVICE` (`brief`: -j -A, the SMART/health log alone, what sampling needs) and
    parse it. SmartctlError where smartctl is missing, fails, or reads no drive (its message)."""
    try:
        program = programs.find(smartctl or "smartctl")
    except programs.ProgramRefused as exc:
        raise SmartctlError(str(exc)) from None
    if program is None and smartctl:
        raise SmartctlError(f"cannot run smartctl: {smartctl} is not an executable file")
    if program is None:
        raise SmartctlError("smartctl is not installed (Debian: apt install smartmontools)")
    # -n standby: never spin up a sleeping disk just to read it.
    argv = [program, "-j", "-A" if brief else "-a", "-n", "standby", "--", device]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SmartctlError(f"smartctl did not answer for {device} within {timeout:g} s") from None
    except OSError as exc:
        raise SmartctlError(f"cannot run smartctl: {exc.strerror}") from None
    try:
        return parse(done.stdout.decode("utf-8", errors="replace"))
    except SmartctlError:
        raise
    except ValueError as exc:
        raise SmartctlError(f"smartctl's answer for {device} did not read: {exc}") from None


# --------------------------------------------------------------------------- JSON values, checked


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


# smartctl prints a drive's counters as the drive keeps them, NVMe's in 128 bits: a count past that, or
# below 0, is not one (and past 2**1024 it is no float either: OverflowError ended `labtui disks`).
_COUNTER_MAX = 2**128 - 1


def _int(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _COUNTER_MAX
    return value if ok else None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and abs(value) > _COUNTER_MAX:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _celsius(value: Any) -> float | None:
    """A temperature smartctl gives, where a drive can have it (labtui.model.result.celsius): a sensor that
    cannot be read makes smartctl say -273 °C (0 K) or 65262 °C (0xFFFF K)."""
    return celsius(_num(value))


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return printable(value, one_line=True) or None if isinstance(value, str) else None
