"""The comparison as a picture: the SVG parses as XML and holds each result's figure, its spread,
the context difference and the bottleneck; `compare --svg` and the Compare screen's key write it."""

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import replace

import pytest

from labtui.analysis.comparison import compare
from labtui.cli import main
from labtui.model.profile import MIB
from labtui.render.comparison_svg import bar, comparison_svg, whisker
from labtui.results.store import Store
from synthetic import READ, TARGET, WRITE, run_result
from tui_support import make_app, screen_text, set_text, wait_for

SVG = "{http://www.w3.org/2000/svg}"
LINKED = replace(TARGET, pcie_max_speed="16.0 GT/s PCIe", pcie_max_width=4)


def iops(mib_s: float) -> float:
    return mib_s * MIB / READ.block_size


def results():
    a = run_result("startech", {READ: [iops(3366), iops(3350), iops(3382)], WRITE: [iops(3269)]}, target=LINKED,
                   tags=("StarTech PEX4M2E1",))
    b = run_result("hp", {READ: [iops(3393), iops(3390), iops(3396)], WRITE: [iops(3270)]}, minutes=30,
                   target=replace(LINKED, firmware="731120WD"), tags=("HP 933576-001",))
    return a, b


def svg_lines(svg: str) -> list[str]:
    """The text of the picture, line by line: the SVG must parse, and each <text> run is put back at the
    column its x says (Rich leaves out the runs that are only spaces)."""
    root = ET.fromstring(svg)
    rows: dict[float, dict[int, str]] = defaultdict(dict)
    cell = None
    for node in root.iter(f"{SVG}text"):
        if node.get("class", "").endswith("-title"):
            continue
        text = "".join(node.itertext()).replace("\xa0", " ")
        if cell is None and text.strip():
            cell = float(node.get("textLength")) / len(text)
        if cell is None:
            continue
        column = round(float(node.get("x")) / cell)
        for i, ch in enumerate(text.rstrip("\n")):
            rows[float(node.get("y"))][column + i] = ch
    return ["".join(row.get(i, " ") for i in range(max(row, default=-1) + 1)).rstrip()
            for _y, row in sorted(rows.items())]


def test_bars_and_whiskers_on_one_scale():
    assert bar(50, 100, 8) == "████" and bar(100, 100, 8) == "████████" and bar(0, 100, 8) == ""
    assert bar(1, 8 * 8, 8) == "▏"  # an eighth of a cell
    assert whisker(25, 75, 100, 8) == "  ├───┤" and whisker(50, 50.5, 100, 8) == "    ┼"


def test_the_picture_holds_each_figure_its_spread_the_difference_and_the_bottleneck():
    a, b = results()
    comparison = compare([a, b])
    lines = svg_lines(comparison_svg(comparison))
    text = "\n".join(lines)
    read = comparison.groups[0].row("mib_s")
    ci_a, ci_b = read.figures[0].interval(), read.figures[1].interval()
    assert "Read 64K random (RND64K Q8T4 R) · MiB/s (higher is better)" in text
    bars = [line for line in lines if "MiB/s" in line and "█" in line]
    assert bars[0].startswith("A  ") and "3,366.0 MiB/s" in bars[0] and "the reference" in bars[0]
    assert bars[1].startswith("B  ") and "3,393.0 MiB/s" in bars[1] and "+0.8 %" in bars[1]
    assert f"95 % CI {ci_a[0]:,.1f} – {ci_a[1]:,.1f} (3 runs)" in text
    assert f"95 % CI {ci_b[0]:,.1f} – {ci_b[1]:,.1f} (3 runs)" in text
    assert "3,269.0 MiB/s" in text and "single run: spread unknown" in text
    assert "├" in text or "┼" in text  # the whiskers are drawn
    difference = next(line for line in lines if line.strip().startswith("firmware"))
    assert "620361WD" in difference and "731120WD" in difference
    flat = " ".join(text.split())
    assert ("both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive, "
            "which supports 16 GT/s") in flat
    assert "startech: WD_BLACK SN850X 4000GB" in text and "tags: HP 933576-001" in flat

    # A CPU-bound step (B's slower reads): its verdict kept, marked as the answer above says it; the advice once.
    slower = run_result("hp", {READ: [iops(2700), iops(2690), iops(2710)], WRITE: [iops(3270)]}, minutes=30)
    bound = replace(slower, steps=tuple(replace(s, engine_bound="a worker process used 98 % of a CPU")
                                        if s.step == READ else s for s in slower.steps))
    flat = " ".join("\n".join(svg_lines(comparison_svg(compare([a, bound])))).split())
    assert "worse, CPU-bound · 3 vs 3 runs" in flat and flat.count("try more threads") == 1
    assert "warning: B (hp) is CPU-bound in 'Read 64K random' " in flat

def test_the_longest_bar_is_the_largest_figure_and_the_scale_starts_at_zero():
    a, b = results()
    lines = svg_lines(comparison_svg(compare([a, b])))
    bars = [line for line in lines if "MiB/s" in line and "█" in line][:2]
    lengths = [sum(1 for ch in line if ch in "█▏▎▍▌▋▊▉") for line in bars]
    assert lengths[0] <= lengths[1] and min(lengths) > 30  # 3,366 vs 3,393 of a 0-based scale: nearly equal


def compare_svg(home, tmp_path):
    """`labtui compare startech hp --svg FILE` on the two results saved at `home`: the file."""
    store = Store(home)
    for r in results():
        store.save_result(r)
    out = tmp_path / "adapters.svg"
    assert main(["compare", "startech", "hp", "--svg", str(out)]) == 0
    return out


def test_compare_writes_the_svg(labtui_home, tmp_path, capsys):
    out = compare_svg(labtui_home, tmp_path)
    captured = capsys.readouterr()
    assert "Differences against A" in captured.out and f"wrote the comparison picture to {out}" in captured.err
    assert "3,393.0 MiB/s" in "\n".join(svg_lines(out.read_text()))
    # Again: the picture is replaced, as a build output is.
    assert main(["compare", "hp", "startech", "--svg", str(out), "--json"]) == 0
    assert "B  " in "\n".join(svg_lines(out.read_text()))


def test_the_picture_fetches_nothing_when_opened(labtui_home, tmp_path):
    # Rich's SVG loads Fira Code from a CDN: offline (a lab box, a reader on a train) the picture
    # would change font, and a file a lab tool writes must not reach out to the internet when opened.
    svg = compare_svg(labtui_home, tmp_path).read_text()
    namespaces = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.w3.org/XML/1998/namespace"}
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", svg))
    assert urls <= namespaces, urls - namespaces
    assert "@font-face" not in svg and "url(" not in svg.replace("url(#", "")  # no font file, no image: only ids
    assert "@import" not in svg
    # The text is still drawn in a monospace font the reader's machine has, Fira Code first where installed.
    root = ET.fromstring(svg)
    style = "".join(node.text or "" for node in root.iter(f"{SVG}style"))
    matrix = re.search(r"-matrix\s*{[^}]*font-family:\s*([^;]+);", style)
    assert matrix is not None, style
    fonts = [f.strip().strip('"') for f in matrix.group(1).split(",")]
    assert fonts[-1] == "monospace" and "DejaVu Sans Mono" in fonts, fonts


@pytest.mark.parametrize("name", ["adapters.png", "missing/adapters.svg", "results"])
def test_a_bad_svg_path_is_one_line_and_writes_nothing(labtui_home, tmp_path, capsys, name):
    store = Store(labtui_home)
    for r in results():
        store.save_result(r)
    (tmp_path / "results").mkdir()
    path = tmp_path / name
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(["compare", "startech", "hp", "--svg", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("labtui: error: ") and "--svg" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


async def test_the_compare_screen_exports_the_picture(labtui_home, tmp_path):
    from labtui.screens.compare import CompareScreen
    from labtui.screens.prompt import TextPrompt

    app = make_app(labtui_home, cwd=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen(list(results())))
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.comparison is not None)
        assert "Picture" in screen_text(app)  # the key is in the footer
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the file prompt")
        await set_text(pilot, "#prompt-input", "adapters.svg")
        await pilot.press("enter")
        await wait_for(pilot, lambda: (tmp_path / "adapters.svg").exists(), what="the picture")
    assert "3,366.0 MiB/s" in "\n".join(svg_lines((tmp_path / "adapters.svg").read_text()))


def test_a_best_of_figure_says_so_beside_the_mean_s_interval():
    a, b = results()
    best = [replace(r, profile=replace(r.profile, aggregate="best")) for r in (a, b)]
    text = "\n".join(svg_lines(comparison_svg(compare(best))))
    assert "3,382.0 MiB/s" in text and "best of 3; the mean's 95 % CI" in text
