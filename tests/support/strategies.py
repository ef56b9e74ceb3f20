"""Hypothesis strategies for the data model: steps, profiles and whole run results.

Shared by the round-trip tests of the store and by any test that needs arbitrary results.
Values stay within what the model holds (TOML integers, finite floats, text without lone
surrogates), but are otherwise as odd as hypothesis likes: quotes, newlines, brackets and
non-ASCII in every string, None in every optional field.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import strategies as st

from labtui.model.profile import (
    CACHE_MODES,
    MAX_OUTSTANDING,
    MAX_REPEAT,
    MAX_THREADS,
    MIN_STEP_SECONDS,
    NATIVE_WORKERS,
    PATTERNS,
    STATUSES,
    Profile,
    Step,
)
from labtui.model.result import (
    DirectionStats,
    EngineInfo,
    HostInfo,
    LatencySummary,
    RunResult,
    Sample,
    StepResult,
    TargetInfo,
    new_result_id,
)
from labtui.params import BUILTIN_NAMES, PARAM_TYPES, Param
from labtui.units import MICROS

TOML_INT = st.integers(min_value=0, max_value=2**63 - 1)
# Text as labtui holds it: no control characters a terminal would obey (labtui.printable shows
# them as escapes where text comes in), tabs and newlines kept.
text = st.text(st.characters(exclude_categories=("Cs", "Cc"), include_characters="\t\n",
                             exclude_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
               max_size=40)
# Step names are stored stripped; a name is never only whitespace.
names = text.map(str.strip).filter(bool)
numbers = st.floats(min_value=0, allow_nan=False, allow_infinity=False)
maybe_number = st.none() | numbers
maybe_text = st.none() | text
maybe_int = st.none() | TOML_INT


def durations(min_micros: int = 1, max_seconds: int = 86400):
    """Seconds as parse_duration returns them: whole microseconds."""
    return st.integers(min_value=min_micros, max_value=max_seconds * MICROS).map(lambda m: m / MICROS)


def sector_sizes():
    return st.integers(min_value=1, max_value=2**21).map(lambda n: n * 512)


@st.composite
def io_steps(draw, *, valid: bool = True) -> Step:
    cache = draw(st.sampled_from(CACHE_MODES))
    block = draw(sector_sizes() if cache == "off" or valid else st.integers(1, 2**30))
    return Step(
        name=draw(names),
        block_size=block,
        pattern=draw(st.sampled_from(PATTERNS)),
        write_percent=draw(st.integers(0, 100)),
        threads=draw(st.integers(1, MAX_THREADS)),
        outstanding=draw(st.integers(1, MAX_OUTSTANDING)),
        duration=draw(durations(min_micros=round(MIN_STEP_SECONDS * MICROS))),  # shorter is refused
        warmup=draw(durations(min_micros=0)),
        cooldown=draw(durations(min_micros=0)),
        cache=cache,
        latency=draw(st.booleans()),
        native_workers=draw(st.sampled_from(NATIVE_WORKERS)),
    )


program_names = st.from_regex(r"\A[A-Za-z0-9._/+-]{1,20}\Z")
param_names = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,15}\Z").filter(lambda n: n not in BUILTIN_NAMES)
params = st.builds(Param, name=param_names, description=text, default=st.none() | text,
                   type=st.sampled_from(PARAM_TYPES))


@st.composite
def command_steps(draw) -> Step:
    return Step(
        name=draw(names),
        kind="command",
        command=draw(text.filter(str.strip)),
        workdir=draw(text),
        setup=draw(text),
        cleanup=draw(text),
        timeout=draw(durations()),
        drop_caches=draw(st.booleans()),
        sync=draw(st.booleans()),
        requires=tuple(draw(st.lists(program_names, max_size=3))),
        cooldown=draw(durations(min_micros=0)),
    )


steps = st.one_of(io_steps(), command_steps())
profile_names = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,30}\Z")


@st.composite
def profiles(draw, *, valid: bool = True) -> Profile:
    """A profile; `valid` ones pass Profile.validate() (a user profile), others as results keep them."""
    chosen = tuple(draw(st.lists(steps, min_size=1, max_size=5)))
    largest = max((s.block_size for s in chosen if s.is_io), default=1)
    return Profile(
        name=draw(profile_names if valid else names),
        title=draw(text),
        description=draw(text),
        file_size=draw(st.integers(min_value=largest, max_value=2**50)),
        free_space_margin=draw(st.integers(min_value=0, max_value=2**50)),
        repeat=draw(st.integers(1, MAX_REPEAT)),
        steps=chosen,
        # A valid profile uses every parameter it declares; the round trips only need them kept.
        params=() if valid else tuple(draw(st.lists(params, max_size=3, unique_by=lambda p: p.name))),
    )


def datetimes():
    zones = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))])
    # hypothesis takes naive bounds and adds the zones itself
    return st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=zones)  # noqa: DTZ001


directions = st.builds(DirectionStats, ios=TOML_INT, bytes=TOML_INT, seconds=numbers)
latencies = st.builds(
    LatencySummary, mean=maybe_number, min=maybe_number, max=maybe_number, p50=maybe_number, p90=maybe_number,
    p95=maybe_number, p99=maybe_number, p999=maybe_number, p9999=maybe_number,
)
samples = st.builds(
    Sample, t=numbers, seconds=numbers, read_ios=TOML_INT, read_bytes=TOML_INT, write_ios=TOML_INT,
    write_bytes=TOML_INT, read_lat_mean_ms=maybe_number, read_lat_p99_ms=maybe_number,
    write_lat_mean_ms=maybe_number, write_lat_p99_ms=maybe_number, cpu_percent=maybe_number,
)
step_results = st.builds(
    StepResult,
    step=steps,
    status=st.sampled_from(STATUSES),
    read=directions,
    write=directions,
    latency=latencies,
    read_latency=latencies,
    write_latency=latencies,
    cpu_percent=maybe_number,
    cpu_seconds=maybe_number,
    backend=maybe_text,
    processes=st.none() | st.integers(1, MAX_THREADS),
    repetition=st.integers(1, MAX_REPEAT),
    command_line=maybe_text,
    error=maybe_text,
    wall_seconds=maybe_number,
    exit_status=st.none() | st.integers(-255, 255),
    output_tail=maybe_text,
    samples=st.lists(samples, max_size=6).map(tuple),
)
hosts = st.builds(HostInfo, name=maybe_text, os=maybe_text, kernel=maybe_text, cpu_model=maybe_text,
                  cpu_count=maybe_int, ram_bytes=maybe_int)
targets = st.builds(
    TargetInfo, path=text, device=maybe_text, disk=maybe_text, kind=maybe_text, model=maybe_text,
    serial=maybe_text, firmware=maybe_text, transport=maybe_text, rotational=st.none() | st.booleans(),
    size_bytes=maybe_int, pcie_speed=maybe_text, pcie_width=maybe_int, pcie_max_speed=maybe_text,
    pcie_max_width=maybe_int, pcie_port_max_speed=maybe_text, pcie_port_max_width=maybe_int,
    sata_speed=maybe_text, sata_max_speed=maybe_text, usb_speed=maybe_text, sas_speed=maybe_text,
    filesystem=maybe_text, mount_point=maybe_text,
)
engines = st.builds(EngineInfo, name=text, version=maybe_text, command_line=maybe_text)


@st.composite
def run_results(draw, *, ids=None) -> RunResult:
    started = draw(datetimes())
    return RunResult(
        id=draw(ids if ids is not None else st.just(new_result_id(started))),
        status=draw(st.sampled_from(STATUSES)),
        started=started,
        ended=started + draw(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=2))),
        host=draw(hosts),
        target=draw(targets),
        engine=draw(engines),
        profile=draw(profiles(valid=False)),
        steps=tuple(draw(st.lists(step_results, max_size=4))),
        tags=tuple(draw(st.lists(text, max_size=4))),
        source=draw(st.sampled_from(["run", "import"])),
        source_file=draw(maybe_text),
        error=draw(maybe_text),
        warnings=tuple(draw(st.lists(text, max_size=3))),
        params=draw(st.dictionaries(param_names, text, max_size=3)),
    )
