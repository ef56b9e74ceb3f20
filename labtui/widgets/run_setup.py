"""The next run, on the Run screen: the profile as it would run, the target, the engines that can run here,
a quick trial's overrides, tags, Start, and a line for what the screen has to say about starting.

It holds the person's choices for the run; the screen starts it (`StartAsked`) and says how that went
(`say`). The Override fields' values are checked as they are typed; `TrialChanged` carries them.
"""

from __future__ import annotations

import contextlib

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Static
from textual.worker import Worker

from labtui.engine.registry import engine_title
from labtui.errors import ValidationError
from labtui.machine.target_choice import Target, describe_in_full
from labtui.model.profile import Profile
from labtui.model.result import split_tags
from labtui.run.request import RunRequest
from labtui.tui.context import cursor_blinks, lab
from labtui.tui.quick_trial import QuickTrial
from labtui.tui.run_plan import plan_parts
from labtui.tui.work import post_found, report_failure, worker_error
from labtui.units import format_duration, format_size
from labtui.widgets.choice import Choice
from labtui.widgets.line_input import LineInput

TRIAL_FIELDS = ("duration", "file-size", "repeat")


class RunSetup(Vertical):
    """The setup of the next run (hidden by the screen while a run goes)."""

    class StartAsked(Message):
        """Enter in the tags, or Start pressed."""

    class EnginesChecked(Message):
        """Which engines can run here: (name, why it cannot, or None)."""

        def __init__(self, engines: list[tuple[str, str | None]]) -> None:
            super().__init__()
            self.engines = engines

    class TrialChanged(Message):
        """The Override fields changed: the quick trial they now say (empty where their text is not one)."""

        def __init__(self, trial: QuickTrial) -> None:
            super().__init__()
            self.trial = trial

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.profile: Profile | None = None  # the chosen profile, as chosen (the Override fields not applied)
        self.target: Target | None = None
        self._trial_problem: str | None = None  # why the Override fields cannot be used, while it is said

    def compose(self) -> ComposeResult:
        yield Static(id="setup-profile", markup=False)
        yield Static(id="setup-target", markup=False)
        with Horizontal(id="setup-engine-row", classes="setup-row"):
            yield Static("Engine", classes="setup-label")
            yield Static("checking which engines can run here…", id="setup-engines", markup=False)
        # A quick trial, as the CLI's --duration, --file-size and --repeat: empty is the profile's own.
        with Horizontal(id="setup-trial-row", classes="setup-row"):
            yield Static("Override", classes="setup-label")
            for field, label in zip(TRIAL_FIELDS, ("duration ", "  file size ", "  repeat ")):
                yield Static(label, classes="trial-label")
                yield LineInput(id=f"trial-{field}", compact=True, classes="trial-field")
        with Horizontal(classes="setup-row"):
            yield Static("Tags", classes="setup-label")
            yield LineInput(placeholder="optional, comma-separated (hp-adapter); Enter starts", id="setup-tags",
                            compact=True)
            yield Button("Start", id="setup-start", compact=True, variant="primary",
                         tooltip="Start the run (Enter here, Ctrl+S or F5 anywhere on this screen)")
        yield Static(id="run-message", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Next run"
        for field in self.query(Input):
            field.cursor_blink = cursor_blinks(self.app)
        self.engines_worker = self.check_engines()

    @work(thread=True, exit_on_error=False)
    def check_engines(self) -> None:
        """Which engines can run here (fio's and DiskSpd's versions take a second or so): EnginesChecked."""
        post_found(self, self.EnginesChecked(lab(self.app).engine_check()))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        error = worker_error(event)
        if error is not None:  # a check that failed has answered: no engine is offered
            report_failure(self, "Could not tell which engines can run here", error)
            self.post_message(self.EnginesChecked([]))

    # ------------------------------------------------------------------ what is chosen

    def show_plan(self, profile: Profile | None, target: Target | None) -> None:
        """The chosen profile (as the Override fields would make it run) and target."""
        self.profile, self.target = profile, target
        if profile is not None:
            self._trial_placeholders(profile)
            with contextlib.suppress(ValidationError):  # the setup says the profile as it would run
                profile = self.trial().apply(profile)
        if profile is None:
            line = Content.styled("Profile  none: choose one on the Workload screen (w)", "$warning")
        else:
            line = Content.assemble(("Profile  ", "$text-muted"), (profile.name, "bold"),
                                    f" ({profile.title}) · " + " · ".join(plan_parts(profile, target)))
            if lab(self.app).unsaved_profile == profile.name:  # the editor's edits are not what runs
                line = Content.assemble(line, (f" · your edits to {profile.name} are not saved: this runs the saved "
                                               "profile (Ctrl+S on the Workload screen saves them)", "$warning"))
        self.query_one("#setup-profile", Static).update(line)
        if target is None:
            where = Content.styled("Target   none: choose a volume and a directory on the Disks screen (d)", "$warning")
        else:
            where = Content.assemble(("Target   ", "$text-muted"), (str(target.directory), "bold"),
                                     describe_in_full(target))
        self.query_one("#setup-target", Static).update(where)

    def show_engines(self, engines: list[tuple[str, str | None]], remembered: str | None) -> None:
        """The engines that can run here as a choice (`remembered` chosen where it can), why the others cannot."""
        row = self.query_one("#setup-engine-row")
        available = [(engine_title(n), n) for n, why in engines if why is None]
        for old in self.query("#setup-engine"):
            old.remove()
        missing = [(n, why) for n, why in engines if why is not None]
        text = self.query_one("#setup-engines", Static)
        # The first clause of each reason ("fio is not installed"); the tooltip has the whole of it.
        text.update("; ".join(why.split(":")[0] for _n, why in missing))
        text.tooltip = "\n".join(f"{engine_title(n)}: {why}" for n, why in missing) or None
        if not available:
            text.update("No engine can run here: " + "; ".join(why for _n, why in missing))
            return
        # A value's first letter picks it, as on the Workload form: "f" for fio opened the Fleet screen.
        choice = Choice(tuple(available), id="setup-engine", by_letter=True)
        row.mount(choice, before=text)
        if remembered in {n for _label, n in available}:
            choice.value = remembered
        choice.tooltip = "Space switches the engine; only engines that can run here are offered"

    @property
    def engine(self) -> str | None:
        """The engine chosen, None while none can run here (or the check has not answered)."""
        choices = self.query("#setup-engine")
        return choices.first(Choice).value if choices else None

    def choose_engine(self, name: str) -> None:
        for choice in self.query("#setup-engine").results(Choice):
            choice.value = name

    def tags(self) -> tuple[str, ...]:
        return tuple(split_tags(self.query_one("#setup-tags", Input).value))

    def clear_tags(self) -> None:
        self.query_one("#setup-tags", Input).value = ""

    def focus_tags(self, *, at_once: bool = False) -> None:
        """The cursor into the tags; `at_once`: now, not by a deferred focus() (for a key whose next keys,
        typed in the same read, must be the field's)."""
        field = self.query_one("#setup-tags", Input)
        if at_once:
            self.screen.set_focus(field)
        else:
            field.focus()

    @property
    def typing(self) -> bool:
        """The cursor is in one of its fields (an override or the tags): Escape leaves it for the screen keys."""
        return any(field.has_focus for field in self.query(Input))

    def say(self, text: str | Content, severity: str = "") -> None:
        """What the screen has to say about starting (a refusal, a wait); empty hides the line."""
        message = self.query_one("#run-message", Static)
        if isinstance(text, str):
            text = Content.styled(text, f"${severity}") if severity else Content(text)
        message.update(text)
        message.display = bool(text.plain)

    def say_again(self) -> None:
        """Take down what was said about starting, but for the Override fields' problem (still true)."""
        if self._trial_problem is not None:
            self.say(self._trial_problem, "warning")
        else:
            self.say("")

    # ------------------------------------------------------------------ starting

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "setup-tags":
            event.stop()
            self.post_message(self.StartAsked())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "setup-start":
            event.stop()
            self.post_message(self.StartAsked())

    def request(self, profile: Profile, target: Target, *, overrides: bool = True) -> tuple[RunRequest, Profile]:
        """The run these fields ask for of `profile` on `target` (its engine None while none can run here;
        the profile's parameters and a raw device's name are asked as it starts), and `profile` as it
        then runs: the Override fields' applied where `overrides` (ValidationError naming the field)."""
        trial = self.trial() if overrides else QuickTrial()
        return (RunRequest(profile=profile.name, target=str(target.directory), engine=self.engine,
                           overrides=trial.overrides, tags=self.tags()), trial.apply(profile))

    # ------------------------------------------------------------------ a quick trial

    def trial(self) -> QuickTrial:
        """The Override fields' values (ValidationError naming the field whose text is not one)."""
        return QuickTrial.parse(*(self.query_one(f"#trial-{f}", Input).value for f in TRIAL_FIELDS))

    def _trial_placeholders(self, profile: Profile) -> None:
        """Each Override field shows, greyed, the profile's own value: what an empty field means."""
        durations = {s.duration for s in profile.io_steps}
        shown = {"duration": format_duration(next(iter(durations))) if len(durations) == 1 else
                 "per step" if durations else "-",
                 "file-size": format_size(profile.file_size), "repeat": str(profile.repeat)}
        for field, text in shown.items():
            self.query_one(f"#trial-{field}", Input).placeholder = text

    def on_input_changed(self, event: Input.Changed) -> None:
        if not (event.input.id or "").startswith("trial-"):
            return
        event.stop()
        problem, bad, trial = None, None, QuickTrial()
        try:
            trial = self.trial()
            if self.profile is not None:
                trial.apply(self.profile)
        except ValidationError as exc:
            problem, trial = f"Override {exc}", QuickTrial()
            bad = "trial-" + exc.field.replace(" ", "-")
        for field in self.query(".trial-field"):
            field.set_class(field.id == bad, "-invalid")
        self.post_message(self.TrialChanged(trial))
        if problem is not None:
            self._trial_problem = problem
            self.say(problem, "warning")
        elif self._trial_problem is not None:
            self._trial_problem = None
            self.say("")
        self.show_plan(self.profile, self.target)
