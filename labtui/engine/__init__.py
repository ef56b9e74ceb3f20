"""The measuring core: runs workloads on targets, drives fio and DiskSpd and parses their output.

Nothing under this package imports Textual, Rich or `labtui.screens`; the TUI and the headless CLI
consume the same typed event stream (`labtui.engine.events`).
"""
