"""Each engine's command line for the step (widgets/command_lines.py): what a run started now would run."""

from __future__ import annotations

from pathlib import Path

from tui_support import make_app, open_workload, set_text
from workload_support import command_line, command_text


async def test_the_command_lines_never_show_a_refused_test_file_size(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-file_size", "999T")
        assert "--size=1098412116148224" in command_line(app, "fio")
        await set_text(pilot, "#p-file_size", "64Q")
        # Not the last accepted size: the reason the size is refused.
        assert "1098412116148224" not in command_text(app) and "999TiB" not in command_text(app)
        assert "fix Test file to see the command lines: unknown size unit 'q'" in command_text(app)
        await set_text(pilot, "#p-file_size", "64M")
        assert "--size=67108864" in command_line(app, "fio")
        await set_text(pilot, "#p-title", "")  # a field the command lines do not use
        assert "--size=67108864" in command_line(app, "fio")


async def test_the_command_lines_are_those_a_run_makes_with_the_settings_in_config_toml(labtui_home):
    # The preview ignored config.toml: "on 2 processes, io_uring" where native_backend = "sync" runs a
    # thread per I/O in flight, and "fio" where fio_path names another fio.
    (labtui_home / "config.toml").write_text('native_backend = "sync"\nnative_workers = "per-thread"\n'
                                             'fio_path = "/opt/fio-3.36/bin/fio"\n')
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        native = command_line(app, "native")
        assert "4 logical workers on 4 processes (per-thread), a thread per I/O in flight" in native, native
        assert command_line(app, "fio").startswith("/opt/fio-3.36/bin/fio --name=labtui "), command_line(app, "fio")
        # What the preview says is what the run takes: the engine the Run screen would start, with the app's settings.
        from labtui.engine.registry import get_engine

        step, profile = app.profile.steps[0], app.profile
        assert native == get_engine("native", app.settings.engines).command_line(
            step, Path("/path/to/target/labtui-test.dat"), profile.file_size)
    # A setting no run can use is said where the command line would be, as the run would refuse it.
    (labtui_home / "config.toml").write_text('native_backend = "uring"\n')
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        assert command_line(app, "native") == ("will not run: native_backend must be auto or one of io_uring, aio, "
                                               "sync, got 'uring' (in config.toml)")
