"""Many lab hosts at once over the system `ssh`: hosts file, wire format, sessions, the cross-host summary.

`labtui run --hosts FILE` and `labtui check --hosts FILE` start `labtui agent` on every host
through `ssh` (BatchMode, no terminal). The agent streams the run's typed events as JSON lines
(labtui.fleet.wire); the local side (labtui.fleet.session) keeps one state per host, copies each
host's result into the local store and compares the hosts (labtui.fleet.summary). Nothing here
imports Textual or rich: the CLI and the TUI's Fleet view draw the same states.
labtui.fleet.fio_client is the opt-in other way for `labtui run -e fio`: fio's own client mode
against fio servers a lab already runs.
"""
