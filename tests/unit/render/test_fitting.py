"""What a person reads at 60 and 80 columns: figures, ids and words whole, long paths folded, never cut to "…"."""

import io
import re
from dataclasses import replace

import pytest
from rich import box
from rich.console import Console
from rich.table import Table

from labtui.cli import main
from labtui.render.fitting import Either, Fitted
from labtui.render.words import Words
from labtui.results.store import Store
from synthetic import READ, TARGET, WRITE, run_result

# Deep enough that no 60- or 80-column line holds it: it must fold, whole, at its slashes and hyphens.
DEEP = "/srv/lab-benchmarks/startech-pcie-adapter-slot-2/after-the-firmware-upgrade/scratch-area"


def cli(capsys, monkeypatch, columns, *args):
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def lines(renderable, width):
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue().splitlines()


def folded_cell(text, start):
    """The lines of the table cell that begins with `start`: the text at its column, line after line."""
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if start in line)
    at = lines[row].index(start)
    cell = []
    for line in lines[row:]:
        piece = line[at:].split("  ")[0].strip()
        if not piece or (cell and line[:at].strip()):
            break
        cell.append(piece)
    return cell


def unfolded(text):
    """`text` with its lines joined back where a word or a path was folded at the end of one."""
    return re.sub(r"([-/])\s*\n\s*", r"\1", text)


@pytest.fixture
def saved(labtui_home):
    """Two results on an unknown disk with big figures (a RAM disk's millions of IOPS), the second
    on a long target path, with repetitions, so every table's columns are there."""
    unknown = replace(TARGET, model=None, path="/mnt/a")
    store = Store()
    a = store.save_result(run_result("20261101-120000-aaaa", {READ: [2_161_519, 2_150_000], WRITE: [1_110_589]},
                                     target=unknown))[0]
    b = store.save_result(run_result("20261101-130000-bbbb", {READ: [2_224_511], WRITE: [1_113_902]}, minutes=60,
                                     target=replace(unknown, path=DEEP)))[0]
    return a, b


@pytest.mark.parametrize("columns", [60, 80])
def test_history_keeps_its_figures_and_words_whole_at_narrow_widths(saved, capsys, monkeypatch, columns):
    out = cli(capsys, monkeypatch, columns, "history")
    assert max(map(len, out.splitlines())) <= columns
    assert "…" not in out, out
    for figure in ("2,224,511", "139,032", "1,113,902", "69,619", "2,155,760", "134,735", "1,110,589", "69,412"):
        assert figure in out, (figure, out)
    for result in saved:
        assert result.id in out
    # The disk is said whole or, where there is no room beside the figures, left out: never "unkno" over "wn".
    assert "unkno" not in out.replace("unknown", "")


@pytest.mark.parametrize("columns", [60, 80])
def test_show_keeps_every_figure_whole_and_folds_the_target_path(saved, capsys, monkeypatch, columns):
    _a, b = saved
    out = cli(capsys, monkeypatch, columns, "show", b.id)
    table_lines = [line for line in out.splitlines() if not line.startswith(("Read 64K random:", "Write 64K random:"))]
    assert max(map(len, table_lines)) <= columns
    assert "…" not in out, out
    assert DEEP in unfolded(out)  # folded, not cut: a person can read (and copy) all of it
    for figure in ("2,224,511", "139,032", "1,113,902", "69,619", "0.014", "0.029", "0.057", "20.0%"):
        assert figure in out, (figure, out)


@pytest.mark.parametrize("columns", [60, 80])
def test_compare_keeps_figures_and_verdicts_whole_and_folds_what_differs(saved, capsys, monkeypatch, columns):
    a, b = saved
    out = cli(capsys, monkeypatch, columns, "compare", a.id, b.id)
    assert max(map(len, out.splitlines())) <= columns
    assert "unknown disk" not in out and "nvme0n1" in out, out  # a disk with no model, named by its device
    assert "…" not in out, out
    for text in ("2,155,760", "2,224,511", "134,735", "139,032", "1,110,589", "1,113,902", "within noise",
                 "p=0.093"):
        assert text in out, (text, out)
    differs = out[out.index("What differs"):]
    assert "/mnt/a" in differs and DEEP in unfolded(differs), differs


def test_a_table_too_wide_for_its_figures_leaves_out_its_optional_columns_first():
    table = Table(box=box.SIMPLE_HEAD)
    for name in ("id", "profile", "disk", "IOPS", "MiB/s"):
        table.add_column(name, no_wrap=name in ("id", "IOPS", "MiB/s"), overflow="fold")
    table.add_row("20260928-140447-33a3", "quick-sanity", Words("unknown"), "2,161,519", "8,443.4")
    text = "\n".join(lines(Fitted(table, optional=("disk", "profile")), 64))
    assert "2,161,519" in text and "8,443.4" in text and "20260928-140447-33a3" in text
    assert "disk" not in text and "unknown" not in text and "quick-sanity" in text  # the disk went, and only it
    assert max(map(len, text.splitlines())) <= 64
    narrower = "\n".join(lines(Fitted(table, optional=("disk", "profile")), 50))
    assert "2,161,519" in narrower and "quick-sanity" not in narrower and "profile" not in narrower
    wide = "\n".join(lines(Fitted(table, optional=("disk", "profile")), 80))
    assert "unknown" in wide and "disk" in wide


def test_a_table_that_cannot_fit_by_any_column_says_each_row_as_header_value_pairs():
    table = Table(box=box.SIMPLE_HEAD, title="Latency (ms)")
    for name in ("step", "p99", "p99.9", "p99.99", "max"):
        table.add_column(name, justify="right", no_wrap=name != "step")
    table.add_row("Read 4K random read", "1,234.56", "2,345.67", "3,456.78", "4,567.89")
    table.add_row("Write 4K random", "5,678.91", "6,789.12", "7,891.23", "8,912.34")
    pairs = (("p99", "1,234.56"), ("p99.9", "2,345.67"), ("p99.99", "3,456.78"), ("max", "4,567.89"))
    out = lines(Fitted(table), 24)
    assert max(map(len, out)) <= 24
    for header, value in pairs:
        assert any(re.search(rf"(^|   ){re.escape(header)} {re.escape(value)}(   |$)", line.strip()) for line in out), out
    assert "Latency (ms)" in "\n".join(out) and "…" not in "\n".join(out)
    # Wider, as many pairs to a line as fit: a row on three lines, the further ones indented, not a line per column.
    wider = lines(Fitted(table), 40)
    assert wider[1:] == ["step Read 4K random read   p99 1,234.56",
                         "  p99.9 2,345.67   p99.99 3,456.78",
                         "  max 4,567.89",
                         "step Write 4K random   p99 5,678.91",
                         "  p99.9 6,789.12   p99.99 7,891.23",
                         "  max 8,912.34"], wider


def test_a_pair_longer_than_the_line_folds_at_its_words_and_stays_indented():
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("target", overflow="fold")
    table.add_column("IOPS", justify="right", no_wrap=True)
    table.add_row(Words(DEEP), "2,161,519")
    out = lines(Fitted(table), 16)
    assert max(map(len, out)) <= 16 and out[0] == "target" and out[1] == "  /srv/lab-"
    assert all(line.startswith("  ") for line in out[1:]), out
    assert DEEP in unfolded("\n".join(out)) and any(line.strip() == "IOPS 2,161,519" for line in out), out


def test_before_its_rows_are_said_in_pairs_a_table_gives_up_the_space_between_its_columns():
    table = Table(box=box.SIMPLE_HEAD)
    for name in ("step", "IOPS", "MiB/s", "p99 ms"):
        table.add_column(name, justify="right", no_wrap=name != "step")
    table.add_row("Read 4K", "2,161,519", "8,443.4", "0.057")
    spaced = lines(Fitted(table), 40)
    assert any("  2,161,519  " in line for line in spaced)  # Rich's own padding, where it fits
    tight = lines(Fitted(table), 33)
    assert tight[0].split() == ["step", "IOPS", "MiB/s", "p99", "ms"] and tight[2].split() == ["Read", "4K", "2,161,519",
                                                                                              "8,443.4", "0.057"]
    assert tight[2].startswith("Read 4K 2,161,519 8,443.4")  # one space apart, none at the edge
    assert max(map(len, tight)) <= 33


def test_a_cell_with_two_ways_to_be_said_breaks_only_where_it_reads():
    table = Table(box=None)
    table.add_column("metric", no_wrap=True)
    table.add_column("CI", justify="right")
    table.add_row("CPU", Either("68.1 % – 77.6 %", "68.1 % –\n77.6 %"))
    assert any("68.1 % – 77.6 %" in line for line in lines(Fitted(table), 40))
    narrow = lines(Fitted(table), 16)
    assert any(line.rstrip().endswith("68.1 % –") for line in narrow) and any("77.6 %" in line for line in narrow)
    assert not any(re.search(r"\d\s*$", line) and "%" not in line for line in narrow)  # no figure cut from its unit


@pytest.mark.parametrize("columns", [60, 80])
def test_disks_fold_mount_points_at_their_slashes_and_keep_sizes_whole(labtui_home, capsys, monkeypatch, columns):
    from labtui.machine import devices

    disks = [devices.Disk("nvme0n1", "/dev/nvme0n1", "NVMe", model="Samsung SSD 980 PRO 1TB", serial="S5GXNF0R123456X",
                          firmware="5B2QGXA7", size_bytes=1_000_204_886_016)]
    volumes = [devices.Volume("/mnt/nvme-startech-adapter-slot-2", "/dev/nvme0n1p1", "ext4", device="/dev/nvme0n1p1",
                              disk="nvme0n1", size_bytes=983_349_346_304, free_bytes=912_000_000_000)]
    monkeypatch.setattr(devices, "list_disks", lambda **_: disks)
    monkeypatch.setattr(devices, "list_volumes", lambda **_: volumes)
    out = cli(capsys, monkeypatch, columns, "disks")
    assert max(map(len, out.splitlines())) <= columns and "…" not in out, out
    for text in ("/dev/nvme0n1", "932 GiB", "916 GiB", "849 GiB"):
        assert text in out, (text, out)
    # Whole, folded only after a slash or a hyphen where it is longer than its column.
    cell = folded_cell(out, "/mnt/nvme")
    assert "".join(cell) == "/mnt/nvme-startech-adapter-slot-2", (cell, out)
    assert all(piece.endswith(("/", "-")) for piece in cell[:-1]), (cell, out)


@pytest.mark.parametrize("columns", [60, 80])
def test_profiles_keep_their_names_and_figures_whole(labtui_home, capsys, monkeypatch, columns):
    out = cli(capsys, monkeypatch, columns, "profiles")
    assert max(map(len, out.splitlines())) <= columns and "…" not in out, out
    for text in ("quick-sanity", "configmgr-sql-quick", "snia-lite", "20GiB", "12:32", "50:01", "varies"):
        assert text in out, (text, out)
    steps = cli(capsys, monkeypatch, columns, "profiles", "cdm-nvme")
    assert "…" not in steps and max(map(len, steps.splitlines())) <= columns, steps
    for text in ("128KiB", "sequential", "SEQ128K", "Q32T16"):
        assert text in steps, (text, steps)


def test_a_long_token_folds_at_a_hyphen_past_the_first_third_of_the_line():
    from labtui.render.words import cut_token

    # 'F4-o128-reconstruc' over 'ted' was cut at the edge: its last hyphen was before the middle.
    assert cut_token("F4-o128-reconstructed", 17) == len("F4-o128-")
    assert cut_token("/a-very-long-directory-name", 20) == len("/a-very-long-")
    assert cut_token("/x/averyveryverylongname", 20) == 20  # a cut at the start would leave the line nearly empty


@pytest.mark.parametrize("columns", [60, 80])
def test_baselines_keep_the_id_check_takes_whole(saved, capsys, monkeypatch, columns):
    a, b = saved
    cli(capsys, monkeypatch, columns, "baseline", a.id, b.id, "--yes")
    out = cli(capsys, monkeypatch, columns, "baseline")
    assert max(map(len, out.splitlines())) <= columns and "…" not in out, out
    assert a.id in out and "+ 1 more" in out and "quick-sanity" in out, out


@pytest.mark.parametrize("columns", [80, 120])
def test_a_command_step_shows_its_command_under_its_name_not_under_cache(labtui_home, capsys, monkeypatch, columns):
    out = cli(capsys, monkeypatch, columns, "profiles", "zpaq-extract")
    lines = out.splitlines()
    named = next(line for line in lines if "Extract archive" in line)
    command = next(line for line in lines if "zpaq x" in line)
    assert "zpaq" not in named and command.index("zpaq x") == named.index("Extract archive"), out
    assert "zpaq x {archive} -to {scratch}" in " ".join(" ".join(lines).split()), out


def test_the_room_left_goes_where_it_saves_lines_not_to_the_widest_column():
    # The compare table at 80 columns: Rich's way (the widest column gives first) left the long step
    # name 15 cells and every verdict's basis on two lines ("2 vs 2," over "p=0.014").
    from rich.console import Group
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("step", overflow="fold")
    for name in ("metric", "A", "B", "B vs A"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("verdict", min_width=len("within noise"))
    step = Words("Read 4K random from the startech adapter")
    for n, metric in enumerate(("IOPS ↑", "MiB/s ↑", "mean ms ↓", "p99 ms ↓", "CPU ↓")):
        table.add_row(step if n == 0 else "", metric, "33,702\n±54.8 %", "4,974\n±326.7 %", "-85.2 %",
                      Group(Text("worse", no_wrap=True), Text("2 vs 2, p=0.014")))
    out = lines(Fitted(table), 80)
    assert max(map(len, out)) <= 80
    assert sum("2 vs 2, p=0.014" in line for line in out) == 5, out  # each basis whole on its line
    assert len(out) == 1 + 2 + 4 + 2 * 4 + 1  # edge, header and rule, the step's four lines, two a row after, edge
    assert "Read 4K random from the startech adapter" in " ".join(line[:20].strip() for line in out)
