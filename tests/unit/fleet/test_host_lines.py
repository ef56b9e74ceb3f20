"""A host's lines as the local side reads them (labtui/fleet/host_lines.py): a line too long is read through
and said with its size."""

from __future__ import annotations

from labtui.fleet import wire
from labtui.results.store import Store


async def test_a_line_too_long_is_read_through_and_said_with_its_size_before_any_hello(tmp_path):
    # A greeting of 13 MiB (past wire.MAX_LINE_BYTES): the host fails, its reason says the line's
    # size; it was "no labtui agent answered". A real process behind the pipe, as ssh is.
    import sys

    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet

    script = tmp_path / "ssh"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write('x' * {wire.MAX_LINE_BYTES + 1_000_000} + "
                      "'\\n')\nsys.stdout.flush()\nsys.stdin.read()\n")
    script.chmod(0o755)
    fleet = Fleet([Host("beta", "beta")], lambda _host: {"type": "run"}, Store(tmp_path), ssh=str(script))
    (beta,) = await fleet.run()
    assert beta.state == "failed" and beta.reason == (
        f"beta: line too long: it sent a line of {wire.MAX_LINE_BYTES + 1_000_001:,} bytes (a message is at most 12 MiB)"
        ": the host was stopped")
