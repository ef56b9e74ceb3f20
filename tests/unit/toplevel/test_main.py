"""`python -m labtui` (labtui/__main__.py): the same command line as the `labtui` console script (every CLI test runs it so)."""

from cli_calls import run


def test_version(labtui_home):
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("labtui ")
