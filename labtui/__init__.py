"""labtui: a keyboard-driven terminal workbench for benchmarking disks on lab machines."""

__version__ = "0.1.0"
