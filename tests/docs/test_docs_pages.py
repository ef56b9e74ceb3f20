"""What the manual shows as an example is what labtui reads and does: its paths, its profile files."""

import re

from manual import section


def test_where_data_lives_matches_the_store(tmp_path, monkeypatch):
    from labtui.results.store import Store

    text = section("files.md", "Where data lives")
    assert "LABTUI_HOME" in text
    monkeypatch.delenv("LABTUI_HOME", raising=False)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    store = Store()
    home = str(tmp_path)
    assert "`" + str(store.home).replace(home, "~") + "`" in text
    assert "`" + str(store.config_dir).replace(home, "~") + "`" in text
    for layout in ("<data dir>/results/<id>.toml", "<data dir>/profiles/<name>.toml", "<config dir>/config.toml",
                   "<data dir>/baselines.toml", "<data dir>/running/"):
        assert layout in text
    from labtui.results import baselines

    assert baselines.path(store) == store.home / "baselines.toml"
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "lab"))
    store = Store()
    assert store.results_dir == tmp_path / "lab" / "results" and store.settings_path() == tmp_path / "lab" / "config.toml"


def test_the_command_step_example_is_a_profile_that_runs(tmp_path):
    import tomllib

    from labtui.engine.command.engine import CommandEngine
    from labtui.results.profile_file import profile_from_table

    text = section("command-steps.md", "Command steps in your own profiles")
    (example,) = re.findall(r"```toml\n(.*?)```", text, re.S)
    profile = profile_from_table(tomllib.loads(example))
    image = tmp_path / "win 11.vhdx"
    image.write_bytes(b"disk")
    step = profile.steps[0]
    assert profile.params[0].name == "image" and step.requires == ("cp",)
    line = CommandEngine(params={"image": str(image)}).command_line(step, tmp_path, 0)
    assert line.startswith(f"cp '{image}' '{tmp_path}/labtui-<run id>/labtui-scratch-")  # in the run's own directory


def test_the_steady_state_step_example_is_a_step_labtui_reads():
    import tomllib

    from labtui.results.profile_file import profile_from_table

    (example,) = re.findall(r"```toml\n(.*?)```", section("steady-state.md", "Steady state and preconditioning"), re.S)
    (step,) = profile_from_table({"name": "steady"} | tomllib.loads(example)).steps
    assert (step.steady_state, step.steady_window, step.steady_max_rounds, step.duration) == ("snia", 5, 25, 60.0)


def test_the_profile_example_is_a_profile_labtui_reads():
    import tomllib

    from labtui.results.profile_file import profile_from_table

    (example,) = re.findall(r"```toml\n(.*?)```", section("profiles.md", "Writing your own"), re.S)
    profile = profile_from_table(tomllib.loads(example))
    profile.validate()
    assert [(s.threads, s.outstanding) for s in profile.steps] == [(1, 1), (1, 32), (4, 32)] and profile.repeat == 3
