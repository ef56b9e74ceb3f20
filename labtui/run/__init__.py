"""A run: a profile on a target, from the checks before a byte is written to the saved result.

runner.py runs it (preflight, then the steps as a stream of typed events, then cleanup and the
save through the store); target_lock.py keeps two runs off one disk; leftovers.py cleans up after
a run that was killed; signals.py turns SIGINT, SIGTERM and SIGHUP into a clean stop; live.py is
the live state of a run (LiveRun) that the TUI, the headless progress and the fleet all fold the
events into.

Above results and analysis: a run saves through the Store and judges steady state with
labtui.analysis.steady; below the fronts (commands, screens, fleet) that start runs.
"""
