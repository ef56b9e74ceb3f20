"""`labtui run` (labtui/commands/run.py): its options read and refused before anything runs."""

import pytest

from labtui.cli import build_parser
from labtui.commands import run as run_command
from labtui.errors import ValidationError


def test_an_empty_engine_is_refused_not_taken_for_the_default():
    with pytest.raises(ValidationError, match="^--engine: is empty: give an engine's name or leave the option out$"):
        run_command.parse(build_parser().parse_args(["run", "-e", " "]))
