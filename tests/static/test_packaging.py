"""Packaging: every sub-package is listed in pyproject.toml, and the themes ship in the wheel."""

from __future__ import annotations

import tomllib

from conftest import REPO


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_python_package_directory_is_listed():
    listed = set(_setuptools()["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "labtui").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"


def test_themes_are_mapped_into_the_package_with_their_files():
    config = _setuptools()
    assert config["package-dir"]["labtui.themes"] == "themes"
    assert "labtui.themes" in config["packages"] and config["package-data"]["labtui.themes"] == ["*.toml"]
    assert len(list((REPO / "themes").glob("*.toml"))) >= 3


def test_stylesheets_and_profiles_are_package_data():
    # setuptools matches these globs from the package directory, one directory level per '/'.
    covered = {p for pattern in _setuptools()["package-data"]["labtui"] for p in (REPO / "labtui").glob(pattern)}
    needed = set((REPO / "labtui").rglob("*.tcss")) | set((REPO / "labtui" / "profiles").glob("*.toml"))
    assert needed - covered == set()
