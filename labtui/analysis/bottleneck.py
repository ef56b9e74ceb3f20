"""Where a step's bottleneck is: the link's usable bandwidth, the share of it each step used, a link
trained below what the drive supports, and the CPU-bound case.

Only what the kernel reports is used. A PCIe link carries its transfer rate times its lanes, less
its line code (8b/10b at 2.5 and 5 GT/s, 128b/130b at 8, 16 and 32 GT/s, none at 64 GT/s in flit
mode), in each direction at once; a SATA link its line rate less 8b/10b, one direction at a time;
SAS less 8b/10b (3, 6, 12 Gb/s) or 128b/150b (22.5 Gb/s), each way;
USB 3 less 8b/10b (5 Gb/s) or 128b/132b (10 Gb/s and up) each way, USB 2 what its bulk transfers
carry (13 packets of 512 bytes per 125 µs microframe). Those are ceilings before packet and
protocol overhead, so a step that moves 85 % of one has met the link: NVMe drives top out near 90 %
of a PCIe link, SATA drives near 93 % of theirs. Figures here are in MB/s (10^6 bytes), as links
and drive data sheets are rated.

Works on anything with the target's link fields (a `TargetInfo`, a `Disk`): pure, no Textual, no Rich.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from labtui.engine.cpubound import OWN_CPU
from labtui.model.result import RunResult, StepResult

MB = 1_000_000
LINK_BOUND = 0.85  # a step moving this share of the link's ceiling is limited by the link
BEYOND = 1.05  # more than the link can carry (with room for rounding in the kernel's rates)

LINK, NOT_LINK, CPU, CACHE, OVER, UNKNOWN = "link", "not-link", "cpu", "cache", "beyond-link", "unknown"
VERDICTS = (LINK, NOT_LINK, CPU, CACHE, OVER, UNKNOWN)

_PCIE_GENERATIONS = {2.5: "1.0", 5.0: "2.0", 8.0: "3.0", 16.0: "4.0", 32.0: "5.0", 64.0: "6.0"}
_PCIE_CODE = {2.5: (8, 10), 5.0: (8, 10), 8.0: (128, 130), 16.0: (128, 130), 32.0: (128, 130), 64.0: (1, 1)}
# What to look at when a link limits a drive that could go faster, by bus.
_BETWEEN = {"PCIe": "the adapter", "SATA": "the controller", "SAS": "the controller", "USB": "the enclosure"}


def _number(text: str | None, unit: str) -> float | None:
    """The rate in "8.0 GT/s PCIe", "6.0 Gbps" or "5000 Mb/s"; None for "Unknown", junk or nothing."""
    match = re.match(rf"\s*(\d+(?:\.\d+)?)\s*(?:{unit})?", text or "")
    if match is None:
        return None
    value = float(match.group(1))
    return value if value > 0 else None


def _lanes(width: int | None) -> int | None:
    return width if isinstance(width, int) and 0 < width <= 32 else None


def _mb(value: float) -> str:
    return f"{value / MB:,.0f} MB/s"


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


@dataclass(frozen=True)
class Link:
    """A drive's link to the host as the kernel reports it, and what it can carry."""

    bus: str  # "PCIe", "SATA", "USB"
    rate: float  # GT/s per lane (PCIe), Gb/s (SATA), Mb/s (USB), as the kernel says it
    lanes: int = 1
    best_rate: float | None = None  # the fastest the drive supports (None: not reported)
    best_lanes: int | None = None
    port_rate: float | None = None  # the fastest the port above it supports (PCIe)
    port_lanes: int | None = None

    @property
    def code(self) -> tuple[int, int] | None:
        """The line code (payload bits, line bits); None for USB 2 and slower, which has none."""
        if self.bus == "PCIe":
            return _PCIE_CODE.get(self.rate)
        if self.bus == "SATA":
            return (8, 10)
        if self.bus == "SAS":
            return (128, 150) if self.rate >= 22.5 else (8, 10)
        if self.rate >= 10_000:
            return (128, 132)
        if self.rate >= 5_000:
            return (8, 10)
        return None

    @property
    def full_duplex(self) -> bool:
        """Whether reads and writes each have their own lanes (so a mixed step uses the busier direction)."""
        return self.bus in ("PCIe", "SAS") or (self.bus == "USB" and self.rate >= 5_000)

    @property
    def bytes_per_second(self) -> float:
        """The most the link carries in one direction, before packet and protocol overhead."""
        return self.rate_bytes(self.rate, self.lanes)

    def rate_bytes(self, rate: float, lanes: int) -> float:
        if self.bus == "PCIe":
            payload, line = _PCIE_CODE.get(rate, (128, 130))
            return rate * 1e9 * payload / line * lanes / 8
        if self.bus == "SATA":
            return rate * 1e9 * 0.8 / 8
        if self.bus == "SAS":
            return rate * 1e9 * (128 / 150 if rate >= 22.5 else 0.8) / 8
        if rate >= 5_000:
            payload, line = (128, 132) if rate >= 10_000 else (8, 10)
            return rate * 1e6 * payload / line / 8
        if rate >= 480:
            return 13 * 512 / 125e-6  # high speed: 13 bulk packets of 512 bytes per microframe
        return 19 * 64 / 1e-3  # full speed: 19 bulk packets of 64 bytes per frame

    @property
    def name(self) -> str:
        """"PCIe 3.0 x4", "SATA 6 Gb/s", "USB 3.2 Gen 1 (5 Gb/s)"."""
        return self._name(self.rate, self.lanes)

    def _name(self, rate: float, lanes: int) -> str:
        if self.bus == "PCIe":
            generation = _PCIE_GENERATIONS.get(rate)
            return f"PCIe {generation} x{lanes}" if generation else f"PCIe {rate:g} GT/s x{lanes}"
        if self.bus == "SATA":
            return f"SATA {rate:g} Gb/s"
        if self.bus == "SAS":
            return "SAS-4 (22.5 Gb/s)" if rate >= 22.5 else f"SAS {rate:g} Gb/s"
        names = {1.5: "USB 1.1 low speed", 12: "USB 1.1 full speed", 480: "USB 2.0", 5_000: "USB 3.2 Gen 1",
                 10_000: "USB 3.2 Gen 2", 20_000: "USB 3.2 Gen 2x2"}
        rate_text = f"{rate / 1000:g} Gb/s" if rate >= 1000 else f"{rate:g} Mb/s"
        return f"{names[rate]} ({rate_text})" if rate in names else f"USB {rate_text}"

    @property
    def short(self) -> str:
        """For a narrow table cell: "Gen3 x4", "SATA 6G", "USB 5G"."""
        if self.bus == "PCIe":
            generation = _PCIE_GENERATIONS.get(self.rate)
            return f"Gen{generation[0]} x{self.lanes}" if generation else f"{self.rate:g}GT/s x{self.lanes}"
        if self.bus in ("SATA", "SAS"):
            return f"{self.bus} {self.rate:g}G"
        return f"USB {self.rate / 1000:g}G" if self.rate >= 1000 else f"USB {self.rate:g}M"

    @property
    def downgraded(self) -> bool:
        """Trained below what the drive supports: slower, narrower, or both."""
        return bool((self.best_rate and self.best_rate > self.rate) or (self.best_lanes and self.best_lanes > self.lanes))

    @property
    def best_known(self) -> bool:
        """Whether the kernel said what the drive supports at best (so "at its best" can be claimed)."""
        return self.best_rate is not None and (self.bus != "PCIe" or self.best_lanes is not None)

    @property
    def best_name(self) -> str | None:
        if not self.downgraded:
            return None
        return self._name(max(self.best_rate or 0, self.rate), max(self.best_lanes or 0, self.lanes))

    @property
    def best_bytes_per_second(self) -> float | None:
        if not self.downgraded:
            return None
        return self.rate_bytes(max(self.best_rate or 0, self.rate), max(self.best_lanes or 0, self.lanes))

    @property
    def best_speed(self) -> str | None:
        """The drive's best in its bus's own words: "16 GT/s", "16 GT/s x4", "6 Gb/s"."""
        if not self.downgraded:
            return None
        if self.bus == "PCIe":
            text = f"{max(self.best_rate or 0, self.rate):g} GT/s"
            return text + (f" x{self.best_lanes}" if self.best_lanes and self.best_lanes > self.lanes else "")
        return f"{max(self.best_rate or 0, self.rate):g} Gb/s"

    @property
    def short_with_best(self) -> str:
        """"Gen3 x4 (max Gen4)", "Gen3 x2 (max Gen4 x4)", "SATA 3G (max 6G)"."""
        if not self.downgraded:
            return self.short
        best = Link(self.bus, max(self.best_rate or 0, self.rate), max(self.best_lanes or 0, self.lanes)).short
        if self.bus == "PCIe":
            slower = bool(self.best_rate and self.best_rate > self.rate)
            narrower = bool(self.best_lanes and self.best_lanes > self.lanes)
            generation, width = best.split(" ")
            best = f"{generation} {width}" if slower and narrower else (generation if slower else width)
        else:
            best = best.split(" ")[-1]
        return f"{self.short} (max {best})"

    def describe(self) -> str:
        """The link and its ceiling, in one line."""
        code = self.code
        if self.bus == "PCIe":
            how = f"{self.rate:g} GT/s × {self.lanes} lane{'s' if self.lanes != 1 else ''}"
        else:
            how = ""
        coding = f"{code[0]}b/{code[1]}b" if code else ""
        parts = ", ".join(filter(None, [how, f"{coding} encoding" if coding else "bulk transfers"]))
        way = "each way" if self.full_duplex else "one direction at a time"
        return f"{self.name} ({parts}): at most {_mb(self.bytes_per_second)} {way}, before protocol overhead"

    def cause(self) -> str:
        """Why a link runs below the drive's best, as far as the facts tell."""
        if self.bus == "SATA":
            return "a slower port or controller, the cable, or a link speed limit holds it there"
        if self.bus != "PCIe":
            return "the port or the cable holds it there"
        if self.port_rate and self.best_rate and self.port_rate < self.best_rate:
            return f"the port above it supports at most {self.port_rate:g} GT/s: the slot, not the drive, sets the speed"
        if self.port_lanes and self.best_lanes and self.port_lanes < self.best_lanes:
            return f"the port above it has {self.port_lanes} lanes: the slot, not the drive, sets the width"
        if self.port_rate or self.port_lanes:
            return ("the port above it supports more: the link trained low (an adapter or riser, "
                    "a loose or dirty contact, the BIOS's lane settings)")
        return "the slot, an adapter or a riser holds it there"

    def downgrade(self) -> str | None:
        """"below the drive's PCIe 4.0 x4 (16 GT/s, 7,877 MB/s): <cause>"; None when at the drive's best."""
        if not self.downgraded:
            return None
        best = self.best_bytes_per_second or 0.0
        return f"below the drive's {self.best_name} ({self.best_speed}, {_mb(best)}); {self.cause()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "bus": self.bus,
            "name": self.name,
            "rate": self.rate,
            "rate_unit": {"PCIe": "GT/s", "SATA": "Gb/s", "SAS": "Gb/s"}.get(self.bus, "Mb/s"),
            "lanes": self.lanes,
            "encoding": f"{self.code[0]}b/{self.code[1]}b" if self.code else None,
            "full_duplex": self.full_duplex,
            "mb_s": self.bytes_per_second / MB,
            "downgraded": self.downgraded,
            "best": self.best_name,
            "best_mb_s": (self.best_bytes_per_second or 0) / MB if self.downgraded else None,
            "port_rate": self.port_rate,
            "port_lanes": self.port_lanes,
            "cause": self.cause() if self.downgraded else None,
        }


def link_of(facts: Any) -> Link | None:
    """The link of a target or disk from its recorded facts; None where none is known (old results too)."""
    transport = getattr(facts, "transport", None) or ""
    rate = _number(getattr(facts, "pcie_speed", None), "GT/s")
    if rate is not None:
        lanes = _lanes(getattr(facts, "pcie_width", None))
        if lanes is None:
            return None
        return Link("PCIe", rate, lanes,
                    best_rate=_number(getattr(facts, "pcie_max_speed", None), "GT/s"),
                    best_lanes=_lanes(getattr(facts, "pcie_max_width", None)),
                    port_rate=_number(getattr(facts, "pcie_port_max_speed", None), "GT/s"),
                    port_lanes=_lanes(getattr(facts, "pcie_port_max_width", None)))
    if transport == "usb":
        rate = _number(getattr(facts, "usb_speed", None), "Mb/s")
        return Link("USB", rate) if rate is not None and rate >= 12 else None
    rate = _number(getattr(facts, "sata_speed", None), "Gbps")
    if rate is not None:
        return Link("SATA", rate, best_rate=_number(getattr(facts, "sata_max_speed", None), "Gbps"))
    rate = _number(getattr(facts, "sas_speed", None), "Gbit")
    if rate is not None:
        return Link("SAS", rate)
    return None


def unknown_reason(facts: Any, *, imported: bool = False) -> str:
    """Why no link is known: said instead of a verdict. An imported result's facts are what its
    report said (a DiskSpd text from Windows names no link): the kernel here was never asked."""
    if imported:
        return "link unknown: the imported report does not say the disk's link"
    transport = getattr(facts, "transport", None)
    kind = getattr(facts, "kind", None)
    if transport in ("virtio", "xen") or kind == "virtual":
        return "link unknown: a virtual disk (the host's storage behind it is not visible from here)"
    if kind == "memory":
        return "no link: a memory file system"
    return "link unknown: the kernel reported no link speed for this disk"


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class StepBottleneck:
    """One step (its repetitions pooled) against the link."""

    name: str
    repetitions: int
    read_bytes_per_second: float
    write_bytes_per_second: float
    used_bytes_per_second: float  # the busier direction on a full-duplex link, both on a half-duplex one
    direction: str  # "read", "write" or "both": what `used` counts
    share: float | None  # of the link's ceiling; None without a link
    verdict: str  # one of VERDICTS
    text: str  # the verdict in words, with what decided it
    link_name: str | None = None
    cpu_reason: str | None = None  # why a CPU-bound step was (StepResult.engine_bound)

    @property
    def short(self) -> str:
        """For a compare line: "the link limits it (90 % of a PCIe 3.0 x4 link)"."""
        used = f" ({_pct(self.share)} of a {self.link_name} link)" if self.share is not None else ""
        return {
            LINK: f"the link limits it{used}",
            NOT_LINK: f"not the link{used}",
            CPU: f"CPU, not disk: the {self._cpu_limit} limit{used}",
            CACHE: f"cache on: the page cache, not the link{used}",
            OVER: f"more than its {self.link_name} link carries: the recorded link is not the real path",
            UNKNOWN: "link unknown",
        }[self.verdict]

    @property
    def _cpu_limit(self) -> str:
        """Whose limit a CPU-bound step's figure is: one worker's own ("engine"), or the CPUs', where the
        workers waited for one (other work, more threads than CPUs): cpubound's rule for its advice."""
        return "engine's" if self.cpu_reason is None or self.cpu_reason.startswith(OWN_CPU) else "CPUs'"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "repetitions": self.repetitions,
            "read_mb_s": self.read_bytes_per_second / MB,
            "write_mb_s": self.write_bytes_per_second / MB,
            "used_mb_s": self.used_bytes_per_second / MB,
            "direction": self.direction,
            "link_share_pct": 100 * self.share if self.share is not None else None,
            "verdict": self.verdict,
            "text": self.text,
        }


@dataclass(frozen=True)
class Bottlenecks:
    """A result's link and, per step, where its limit was."""

    link: Link | None
    unknown: str | None  # why the link is not known (None when it is)
    steps: tuple[StepBottleneck, ...]

    @property
    def headline(self) -> str:
        """The link in one line, with its downgrade if any; or why it is unknown."""
        if self.link is None:
            return self.unknown or "link unknown"
        text = self.link.describe()
        below = self.link.downgrade()
        return f"{text}; {below}" if below else text

    def lines(self, *, every: bool = True) -> list[str]:
        """The headline, then a line per step ("name: text"); with `every` false only the steps whose
        limit is not the drive's (the link, the CPU, the cache, a link that does not add up)."""
        shown = [s for s in self.steps if every or s.verdict not in (NOT_LINK, UNKNOWN)]
        if self.link is None and not shown:
            return []
        return [self.headline] + [f"{s.name}: {s.text}" for s in shown]

    def step(self, name: str) -> StepBottleneck | None:
        return next((s for s in self.steps if s.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "link": self.link.to_json() if self.link else None,
            "link_unknown": self.unknown,
            "summary": self.headline,
            "steps": [s.to_json() for s in self.steps],
        }


def _rate(members: Sequence[StepResult], direction: str) -> float:
    stats = [getattr(m, direction) for m in members]
    seconds = sum(s.seconds for s in stats if s.bytes or s.seconds)
    return sum(s.bytes for s in stats) / seconds if seconds > 0 else 0.0


def step_bottleneck(members: Sequence[StepResult], link: Link | None, aggregate: str = "mean") -> StepBottleneck | None:
    """A step's repetitions against the link; None when none of them measured anything.

    The repetitions are pooled (their bytes over their seconds), as a mean figure is made; where
    the profile reports the best repetition (aggregate = "best"), that one is held against the link.
    """
    measured = [m for m in members if m.total.seconds > 0 and m.total.bytes > 0]
    if not measured:
        return None
    first = measured[0]
    if aggregate == "best" and len(measured) > 1:
        busiest = max(measured, key=lambda m: max(m.read.bytes_per_second, m.write.bytes_per_second)
                      if link is not None and link.full_duplex else m.total.bytes_per_second)
        read, write = busiest.read.bytes_per_second, busiest.write.bytes_per_second
    else:
        read, write = _rate(measured, "read"), _rate(measured, "write")
    if link is not None and link.full_duplex:
        used, direction = (read, "read") if read >= write else (write, "write")
        if read and write and min(read, write) > 0:
            direction = f"{direction} (the busier direction)"
    else:
        used, direction = read + write, "both" if read and write else ("read" if read else "write")
    share = used / link.bytes_per_second if link is not None else None
    bound = next((m.engine_bound for m in measured if m.engine_bound), None)
    cache_on = first.step.is_io and first.step.cache == "on"
    moved = _mb(used)
    if bound:
        verdict = CPU
        text = f"CPU, not disk: {bound}"
        if share is not None:
            text += f" (it moved {moved}, {_pct(share)} of what the link carries)"
    elif link is None or share is None:
        verdict, text = UNKNOWN, "link unknown"
    elif cache_on:
        verdict = CACHE
        text = (f"cache on: the page cache served it, not the disk alone, so its {moved} "
                f"({_pct(share)} of the {link.name} link) says little about the link")
    elif share > BEYOND:
        verdict = OVER
        text = (f"{moved} is more than a {link.name} link carries ({_mb(link.bytes_per_second)}): the recorded "
                "link is not the real path (a tunnelled link reports a nominal speed; a link that idles slow "
                "may have sped up), or a cache served it")
    elif share >= LINK_BOUND:
        verdict = LINK
        text = f"uses {_pct(share)} of a {link.name} link ({moved} of {_mb(link.bytes_per_second)}): the link limits it"
        if link.downgraded:
            text += f"; the drive supports {link.best_name} ({link.best_speed}); {link.cause()}"
        elif link.best_known:
            text += " (the drive's own best link: its interface is the limit)"
        else:
            text += " (whether the drive supports a faster link is not recorded)"
    else:
        verdict = NOT_LINK
        text = f"uses {_pct(share)} of a {link.name} link ({moved}): the link is not the limit"
        if link.downgraded:
            text += f" (it runs below the drive's {link.best_name}, with room for this step)"
    return StepBottleneck(first.name, len(measured), read, write, used, direction, share, verdict, text,
                          link.name if link else None, bound)


def _by_step(result: RunResult) -> list[list[StepResult]]:
    """The result's steps, each with its repetitions, in the profile's order."""
    groups: dict[str, list[StepResult]] = {}
    for s in result.steps:
        groups.setdefault(s.name, []).append(s)
    return list(groups.values())


def analyse(result: RunResult) -> Bottlenecks:
    """Where each step of a result was limited, from the link facts it recorded."""
    link = link_of(result.target)
    aggregate = result.profile.aggregate
    steps = tuple(b for b in (step_bottleneck(members, link, aggregate) for members in _by_step(result))
                  if b is not None)
    return Bottlenecks(link, None if link else unknown_reason(result.target, imported=result.source == "import"),
                       steps)


def disk_note(facts: Any) -> str | None:
    """For the Disks screen, before any run: a link below the drive's best, and what it costs."""
    link = link_of(facts)
    if link is None or not link.downgraded:
        return None
    return (f"{link.name}, at most {_mb(link.bytes_per_second)}: below the drive's {link.best_name} "
            f"({link.best_speed}, {_mb(link.best_bytes_per_second or 0.0)}); {link.cause()}")


# --------------------------------------------------------------------------- comparisons


def _range(shares: Iterable[float]) -> str:
    values = sorted({round(100 * s) for s in shares})
    return f"{values[0]} %" if len(values) == 1 else f"{values[0]}–{values[-1]} %"


def compared(results: Sequence[RunResult], step_names: Sequence[Sequence[str | None]],
             letters: Sequence[str]) -> list[str | None]:
    """Per matched step (each a name per result, None where it has none): what limited it across the
    results, in words; None for a step where no result says anything worth a line."""
    analyses = [analyse(r) for r in results]
    lines: list[str | None] = []
    for names in step_names:
        found = [(letter, a.link, a.step(name), r) for letter, a, name, r in zip(letters, analyses, names, results)
                 if name is not None and a.step(name) is not None]
        lines.append(_compared_line(found))
    return lines


def _compared_line(found: list) -> str | None:
    known = [(letter, link, s, r) for letter, link, s, r in found if link is not None or s.verdict == CPU]
    if not known or all(s.verdict in (NOT_LINK, UNKNOWN) for _l, _k, s, _r in known):
        return None
    verdicts = {s.verdict for _l, _k, s, _r in known}
    links = {link.name for _l, link, _s, _r in known if link is not None}
    if len(known) == len(found) > 1 and verdicts == {LINK} and len(links) == 1:
        link = known[0][1]
        who = "both runs" if len(known) == 2 else f"all {len(known)} runs"
        line = f"{who} use {_range(s.share for _l, _k, s, _r in known)} of a {link.name} link: "
        models = {r.target.model for _l, _k, _s, r in known}
        if len(models) == 1:
            line += f"the link, not {_BETWEEN[link.bus]}, limits this drive"
            if link.downgraded:
                line += f", which supports {link.best_speed}"
                if link.port_rate and link.best_rate and link.port_rate < link.best_rate:
                    line += f" (the slot's port stops at {link.port_rate:g} GT/s)"
        else:
            line += "the link limits every drive here, so this step cannot tell them apart"
        return line
    return "; ".join(f"{letter}: {s.short}" for letter, _k, s, _r in known)
