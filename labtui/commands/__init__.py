"""Headless sub-commands, one module each: `HELP`, `add_arguments(parser)`, `run(args) -> int`."""
