"""The registry of engines (labtui.engine.registry): the one list every front end and setting takes its engines from."""

from __future__ import annotations

import pytest

from labtui import cli
from labtui.engine import registry
from labtui.run.runner import RunOptions
from labtui.settings import ENGINE_KEYS


def test_every_engine_setting_is_read_by_a_registered_engine():
    read = {key for name in registry.engine_names() for key in registry.engine_class(name).settings_keys}
    assert read == ENGINE_KEYS


def test_the_default_engine_is_the_first_registered_and_the_one_a_run_takes():
    assert registry.default_engine() == registry.engine_names()[0] == RunOptions().engine


def test_the_run_help_lists_the_engines_of_the_registry(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    assert "native (default), fio or diskspd" in " ".join(capsys.readouterr().out.split())
