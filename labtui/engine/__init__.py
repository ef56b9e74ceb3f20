"""The measuring core: runs workloads on targets and reads other tools' results.

Nothing under this package imports Textual or `labtui.screens`; the TUI and the headless CLI
consume the same typed event stream (`labtui.engine.events`).
"""
