"""The manual: it builds as a site with no warning, and keeps everything the README once said."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO
from manual import _blank_fences, headings, pages

# The README's headings on main when the manual was made (issue 38), frozen: each is a heading of a
# page in docs/ (or of the README), under the name given here where it was renamed for users.
OLD_README_HEADINGS = [
    "Quick start",
    "Headless use",
    "Every volume, as the post's script does",
    "Steady state and preconditioning",
    "Comparing results",
    "Where is the bottleneck? The seed post's conclusion, checked",
    'What "within noise" means',
    "Baselines and `labtui check` after a hardware swap",
    "How often the verdicts are wrong",
    "Measurement honesty",
    "Safety",
    "Keeping a long run alive when the SSH link drops",
    "Many hosts: the same run or check on a whole lab, over SSH",
    "fio's own client/server mode (opt-in, for labs that already run `fio --server`)",
    "Engines: native, fio, DiskSpd",
    "The native engine against fio",
    "RAM device",
    "Real disk",
    "Real-world workloads: command steps, zpaq-extract, make-archive",
    "Command steps in your own profiles",
    "Importing DiskSpd and fio results",
    "Built-in profiles",
    "The TUI",
    "Themes",
    "Start-up speed",
    "History speed with thousands of results",
    "The TUI's cost to a run",
    "Where data lives",
]
RENAMED: dict[str, str] = {}


def test_every_old_readme_heading_is_in_the_manual():
    found = {h for text in pages().values() for h in headings(text)}
    missing = [h for h in OLD_README_HEADINGS if RENAMED.get(h, h) not in found]
    assert not missing, f"the manual lost these sections of the old README: {missing}"


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= 250


# The one table of measured figures kept outside the performance page: what a lab of many hosts costs,
# which issue 44 asks of the many-hosts page itself.
BENCHMARK_TABLES_ELSEWHERE = {("many-hosts.md", "What a lab of many hosts costs here")}


def test_the_tables_of_benchmark_figures_live_in_the_performance_page():
    """Issue 38: the developers' tables of figures live only in docs/performance.md; the README has no table at
    all. A section holding a table and naming a script of benchmarks/ is such a table."""
    assert not re.search(r"^\|", _blank_fences(pages()["README.md"]), re.M), "the README holds a table"
    found = set()
    for name, text in pages().items():
        parts = re.split(r"^#+ (.+)\n", _blank_fences(text), flags=re.M)  # [before, title, body, title, body ...]
        for title, body in zip(parts[1::2], parts[2::2]):
            if "benchmarks/" in body and re.search(r"^\|", body, re.M):
                found.add((name, title))
    elsewhere = {(name, title) for name, title in found if name != "performance.md"}
    assert elsewhere == BENCHMARK_TABLES_ELSEWHERE, f"move these tables of figures to docs/performance.md: {elsewhere}"
    assert any(name == "performance.md" for name, _ in found)


def test_the_site_builds_strictly(tmp_path):
    """A broken link, a missing anchor or a page left out of the nav fails the build (mkdocs.yml); the test
    extra installs mkdocs-material (through the docs extra), so CI builds it too."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "comparing" / "index.html").is_file()
