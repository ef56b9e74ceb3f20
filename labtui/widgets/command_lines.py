"""The step as each engine would run it: every registered engine's command line, live.

In the engines' own order (Engine.preview_order): DiskSpd first, because the lab scripts people
compare against use it. With the person's config.toml (fio_path, native_backend, native_workers
...): the preview is what a run started now would run, not the engines' defaults.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, Static

from labtui.engine.command.engine import missing_program
from labtui.engine.registry import engine_class, engine_names
from labtui.errors import LabtuiError
from labtui.model.profile import Step
from labtui.settings import EngineSettings
from labtui.tui.profile_draft import ProfileDraft
from labtui.tui.profile_fields import field_label
from labtui.units import parse_size

# Where the engines' command lines say the test file goes (a run names it after its id).
TEST_FILE_NAME = "labtui-test.dat"
# Profile fields the engines' command lines do not use: an error there leaves them as they are.
NOT_IN_COMMANDS = ("name", "title", "description", "free_space_margin", "repeat", "aggregate", "repeat_order",
                   "discard_first", "pause", "decimal_units")


def previewed() -> list[str]:
    """The registered engines in the order their command lines are shown (Engine.preview_order)."""
    return sorted(engine_names(), key=lambda name: engine_class(name).preview_order)


def engine_lines(step: Step, path: Path, file_size: int,
                 settings: EngineSettings | None = None) -> list[tuple[str, str, bool]]:
    """(engine label, command line or why there is none, whether it is a command line), each engine
    with `settings` (config.toml's, as a run reads them; None: the engines' defaults)."""
    if step.kind == "command":
        where = f" (in {step.workdir})" if step.workdir else ""
        # What the step requires is checked before the run: a program missing here refuses it, so says so.
        missing = next(filter(None, map(missing_program, step.requires)), None)
        if missing is not None:
            return [("shell", f"will not run: {missing}. The command: {step.command}{where}", False)]
        needs = f"; needs {', '.join(step.requires)}" if step.requires else ""
        return [("shell", f"{step.command}{where}{needs}", True)]
    lines = []
    for name in previewed():
        engine = engine_class(name)(settings)
        label = engine.title
        refused = engine.refusal(step)
        if refused is not None:  # what a run would say before writing anything (DiskSpd and a verified step)
            lines.append((label, refused, False))
            continue
        try:
            lines.append((label, engine.command_line(step, path, file_size), True))
        except Exception as exc:  # noqa: BLE001 - an engine that cannot express a step says why
            # Or a setting of config.toml it cannot use (native_backend = "uring"), which a run refuses too.
            setting = isinstance(exc, LabtuiError) and any(key in str(exc) for key in engine.settings_keys)
            lines.append((label, f"will not run: {exc} (in config.toml)" if setting
                          else f"cannot express this step: {exc}", False))
    return lines


class CommandLines(VerticalScroll, can_focus=False):
    """One row per engine; refreshed by `show` whenever the step, target or file size changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: list[tuple[str, str, bool]] | None = None
        self.settings: EngineSettings | None = None  # config.toml's, which the screen gives (None: defaults)

    def compose(self) -> ComposeResult:
        for name in previewed():
            with Horizontal(classes="command-line", id=f"command-{name}"):
                yield Label(engine_class(name).title, classes="command-engine")
                yield Static("", classes="command-text", markup=False)

    def show(self, step: Step | None, path: Path, file_size: int, problem: str | None = None) -> None:
        """Show `step`'s command lines for a test file at `path`; `problem` when the step is invalid."""
        if step is None:
            lines = [("", problem or "no step selected", False)]
        else:
            lines = engine_lines(step, path, file_size, self.settings)
        if lines == self._shown:
            return  # most keystrokes change nothing here; spare the layout
        self._shown = lines
        rows = list(self.query(".command-line").results(Horizontal))
        for i, row in enumerate(rows):
            row.display = i < len(lines)
            # A row not shown keeps no text either: nothing stale stays behind it.
            label, text, ok = lines[i] if i < len(lines) else ("", "", True)
            row.query_one(".command-engine", Label).update(label)
            body = row.query_one(".command-text", Static)
            body.update(text)
            body.set_class(not ok, "-unavailable")

    def show_draft(self, draft: ProfileDraft, index: int, directory: Path | None, errors: dict[str, str]) -> None:
        """The command lines of `draft`'s step `index` for a test file in `directory` (None: none chosen),
        or what to fix first where `errors` (the draft's) leave none to show."""
        file_size = parse_size(draft.good_fields["file_size"])
        step = draft.step(index)
        problem = None
        # A refused test file size (or a rule over the whole profile) would leave the last accepted
        # one in the command lines: they would show what does not run.
        refused = next(((k, v) for k, v in errors.items() if not k.startswith("steps[") and k not in NOT_IN_COMMANDS),
                       None)
        if step is None:
            prefix = f"steps[{index + 1}]."
            reason = next((v for k, v in errors.items() if k.startswith(prefix)), "the step has an error")
            problem = f"fix the step to see the command lines: {reason}"
        elif refused is not None:
            step = None
            problem = f"fix {field_label(refused[0])} to see the command lines: {refused[1]}"
        self.show(step, (directory or Path("/path/to/target")) / TEST_FILE_NAME, file_size, problem)
