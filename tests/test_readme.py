"""The README's Quick start is a contract: two commands, and CI runs the test one verbatim."""

import re

from conftest import REPO


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_quick_start_has_two_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert "labtui" in commands[0] and "pytest" in commands[1]


def test_the_test_command_runs_in_parallel_with_what_the_test_extras_install():
    import tomllib

    command = _quick_start_commands()[1]
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert re.search(r"pytest -q -n \d+$", command) and any(e.startswith("pytest-xdist") for e in extras)


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert _quick_start_commands()[1] in ci

def _section(title: str) -> str:
    return (REPO / "README.md").read_text().split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_where_data_lives_matches_the_store(tmp_path, monkeypatch):
    from labtui.results.store import Store

    text = _section("Where data lives")
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
    import re as _re
    import tomllib

    from labtui.engine.command import CommandEngine
    from labtui.results.profile_file import profile_from_table

    section = _section("Real-world workloads: command steps, zpaq-extract, make-archive")
    (example,) = _re.findall(r"```toml\n(.*?)```", section, _re.S)
    profile = profile_from_table(tomllib.loads(example))
    image = tmp_path / "win 11.vhdx"
    image.write_bytes(b"disk")
    step = profile.steps[0]
    assert profile.params[0].name == "image" and step.requires == ("cp",)
    line = CommandEngine(params={"image": str(image)}).command_line(step, tmp_path, 0)
    assert line.startswith(f"cp '{image}' {tmp_path}/labtui-scratch-")
