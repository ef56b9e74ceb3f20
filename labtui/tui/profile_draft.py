"""Profile drafts for the workload editor: the fields as typed, checked by the model's own rules.

A draft keeps every value as the person typed it (text for sizes, durations and numbers) and
asks labtui.results.profile_file's `profile_from_table` / `step_from_table` — the same code that
reads profile files — whether it is acceptable. Nothing here knows a rule of its own: an error
is whatever the model says, attached to the field the model names.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from labtui.errors import ValidationError
from labtui.model.profile import Profile, Step
from labtui.results.profile_file import PRESET_KEYS, profile_from_table, profile_to_table, step_from_table, step_to_table
from labtui.tui.step_names import renamed

PROFILE_FIELDS = ("name", "title", "description", "file_size", "free_space_margin", "repeat", "precondition",
                  *PRESET_KEYS)
IO_FIELDS = ("block_size", "pattern", "write_percent", "threads", "outstanding", "duration", "warmup",
             "cooldown", "pause", "cache", "write_through", "latency", "steady_state", "steady_window",
             "steady_max_rounds", "native_workers", "verify")
# `requires` (a list of programs in the file) is edited as one line of names: "zpaq fio".
COMMAND_FIELDS = ("command", "workdir", "setup", "cleanup", "timeout", "drop_caches", "sync", "requires", "cooldown",
                  "pause")
# What a profile file leaves out where a key has its default: the editor shows the default. A
# step's empty pause is the profile's.
PROFILE_DEFAULTS: dict[str, Any] = {"precondition": "0", "aggregate": "mean", "repeat_order": "profile",
                                    "discard_first": False, "pause": "0s", "decimal_units": False}
OPTIONAL_STEP_KEYS = ("workdir", "setup", "cleanup", "steady_state", "pause", "native_workers", "requires")


def programs(text: str) -> list[str]:
    """The programs a line of the editor names ("zpaq, fio" or "zpaq fio"), as `requires` lists them."""
    return [name for name in re.split(r"[\s,]+", text) if name]


def step_fields(kind: str) -> tuple[str, ...]:
    """The fields a step of `kind` has, in the order the editor shows them."""
    return ("name", "kind") + (COMMAND_FIELDS if kind == "command" else IO_FIELDS)


def step_field_path(index: int, key: str) -> str:
    """The model's name for a step field (`steps[2].threads`), as ValidationError.field uses it."""
    return f"steps[{index + 1}].{key}"


def _as_typed(value: Any) -> Any:
    # Numbers are edited as text; booleans and choices stay as they are.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _step_values(step: Step) -> dict[str, Any]:
    """Every field of both kinds, so switching a step's kind back and forth loses nothing."""
    values = {k: _as_typed(v) for k, v in step_to_table(replace(step, kind="io")).items()}
    values.update({k: _as_typed(v) for k, v in step_to_table(replace(step, kind="command")).items()})
    values.setdefault("workdir", "")
    values.setdefault("setup", "")
    values.setdefault("cleanup", "")
    # A timed step's file leaves the steady-state keys out: the editor shows their defaults.
    values.setdefault("steady_state", "")
    values.setdefault("steady_window", str(step.steady_window))
    values.setdefault("steady_max_rounds", str(step.steady_max_rounds))
    values.setdefault("pause", "")
    values.setdefault("write_through", False)
    values.setdefault("native_workers", "")
    values["requires"] = " ".join(step.requires)
    values.setdefault("verify", False)
    values["kind"] = step.kind
    return values


class StepDraft:
    def __init__(self, step: Step) -> None:
        self.values = _step_values(step)
        self.good = self.table()  # the last state the model accepted
        self.named = False  # the person typed its name: it no longer follows the fields (step_names)

    @property
    def kind(self) -> str:
        return self.values.get("kind", "io")

    def table(self, values: dict[str, Any] | None = None) -> dict[str, Any]:
        """The step as a profile file would hold it (only the fields its kind has)."""
        values = self.values if values is None else values
        kind = values.get("kind", "io")
        table = {k: values[k] for k in step_fields(kind)
                 if k in values and not (k in OPTIONAL_STEP_KEYS and values[k] == "")}
        if isinstance(table.get("requires"), str):
            table["requires"] = programs(table["requires"])
            if not table["requires"]:
                del table["requires"]  # spaces alone: nothing required, as a file leaves the key out
        return table

    def step(self, index: int) -> Step | None:
        try:
            return step_from_table(self.table(), f"steps[{index + 1}]")
        except ValidationError:
            return None

    def copy(self) -> StepDraft:
        clone = StepDraft.__new__(StepDraft)
        clone.values = dict(self.values)
        clone.good = dict(self.good)
        clone.named = self.named
        return clone


class ProfileDraft:
    """An editable copy of a profile."""

    def __init__(self, profile: Profile) -> None:
        self.original = profile
        data = profile_to_table(profile)
        # A key a profile file may leave out (precondition = 0) is shown with its value.
        self.fields: dict[str, Any] = {k: _as_typed(data.get(k, PROFILE_DEFAULTS.get(k, getattr(profile, k))))
                                     for k in PROFILE_FIELDS}
        self.good_fields = dict(self.fields)
        # Parameters are not edited here (yet): kept as they are, so the steps' {placeholders} still resolve.
        self.params: dict[str, Any] = data.get("params", {})
        self.steps = [StepDraft(s) for s in profile.steps]
        self.described = False  # the person typed the description: it no longer follows the edits
        self.titled = False  # the person typed the title: it no longer follows them either

    # ------------------------------------------------------------------ editing

    def set_field(self, key: str, value: Any) -> None:
        if key not in PROFILE_FIELDS:
            raise KeyError(key)
        if key == "description" and value != self.fields[key]:
            self.described = True
        if key == "title" and value != self.fields[key]:
            self.titled = True
        self.fields[key] = value
        self._remember_good()

    def set_step_field(self, index: int, key: str, value: Any) -> None:
        if key not in ("name", "kind") + IO_FIELDS + COMMAND_FIELDS:
            raise KeyError(key)
        step = self.steps[index]
        if key == "name" and value != step.values.get("name"):
            step.named = True
        step.values[key] = value
        self._remember_good()

    def add_step(self, after: int) -> int:
        """Insert a copy of step `after` behind it; returns the new step's index."""
        clone = self.steps[after].copy()
        names = {s.values["name"] for s in self.steps}
        base = f"{clone.values['name']} (copy)"
        name, n = base, 2
        while name in names:
            name, n = f"{base} {n}", n + 1
        clone.values["name"] = name
        clone.good["name"] = name
        self.steps.insert(after + 1, clone)
        return after + 1

    def remove_step(self, index: int) -> None:
        if len(self.steps) == 1:
            # The model's rule, asked of the model: a profile without steps is not one.
            replace(self.original, steps=()).validate()
        del self.steps[index]

    def move_step(self, index: int, delta: int) -> int:
        target = max(0, min(len(self.steps) - 1, index + delta))
        self.steps.insert(target, self.steps.pop(index))
        return target

    def _remember_good(self) -> None:
        for i, step in enumerate(self.steps):
            where = f"steps[{i + 1}]"
            try:
                now = step_from_table(step.table(), where)
            except ValidationError:
                continue
            if not step.named and step.table() != step.good:
                # A name made from the fields says them as they are now ("Read 64K random" -> "Read 4K random").
                name = renamed(step.values["name"], step_from_table(step.good, where), now)
                if name is not None:
                    step.values["name"] = name
            step.good = step.table()
        try:
            self._profile_from(self.fields, [s.good for s in self.steps])
            self.good_fields = dict(self.fields)
        except ValidationError:
            pass

    # ------------------------------------------------------------------ checking

    def _profile_from(self, fields: dict[str, Any], steps: list[dict[str, Any]]) -> Profile:
        params = {"params": self.params} if self.params else {}
        return profile_from_table({**fields, **params, "steps": steps}, origin=self.original.origin)

    def accepted(self) -> Profile:
        """The profile as the model last accepted it, field by field (what the refused fields were
        before they were refused)."""
        return self._profile_from(self.good_fields, [s.good for s in self.steps])

    def build(self) -> Profile:
        """The profile as edited; ValidationError (naming the field) if the model refuses it."""
        return self._profile_from(self.fields, [s.table() for s in self.steps])

    def errors(self) -> dict[str, str]:
        """Every field the model refuses, by the model's field name, with the model's reason.

        Each field is tried on its own against the last accepted state (so two mistakes show
        as two messages), then the whole profile (for rules that tie fields together).
        """
        errors: dict[str, str] = {}
        good_steps = [s.good for s in self.steps]
        for key in PROFILE_FIELDS:
            if self.fields[key] == self.good_fields.get(key):
                continue
            try:
                self._profile_from({**self.good_fields, key: self.fields[key]}, good_steps)
            except ValidationError as exc:
                errors.setdefault(exc.field or key, exc.reason)
        for i, step in enumerate(self.steps):
            where = f"steps[{i + 1}]"
            try:
                step_from_table(step.table(), where)
                continue
            except ValidationError as exc:
                errors.setdefault(exc.field or where, exc.reason)
            base = {**step.values, **step.good, "kind": step.kind}
            for key in step_fields(step.kind):
                if key == "kind" or step.values.get(key) == step.good.get(key):
                    continue
                candidate = step.table({**base, key: step.values.get(key, "")})
                try:
                    step_from_table(candidate, where)
                except ValidationError as exc:
                    errors.setdefault(exc.field or step_field_path(i, key), exc.reason)
        if not errors:
            try:
                self.build()
            except ValidationError as exc:
                errors[exc.field or "profile"] = exc.reason
        return errors

    def step(self, index: int) -> Step | None:
        """Step `index` as the model reads it, or None while it has an error."""
        return self.steps[index].step(index)

    @property
    def dirty(self) -> bool:
        """Whether the draft differs from the profile it started from ("64K" for "64KiB" does not)."""
        try:
            return self.build() != self.original
        except ValidationError:
            return True


def changes(original: Profile, edited: Profile) -> list[tuple[str, str, str]]:
    """What `edited` changes in `original`'s settings, as (field, new value, old value) in the
    profile file's terms: "file_size" for the profile's own, "steps[2].duration" for one step's,
    "steps[*].duration" where every step changed alike. Name, title and description are left out."""
    found: list[tuple[str, str, str]] = []
    old, new = profile_to_table(original), profile_to_table(edited)
    for key in PROFILE_FIELDS[3:]:
        now, before = _value(new, edited, key), _value(old, original, key)
        if now != before:
            found.append((key, _shown(now), _shown(before)))
    old_steps, new_steps = old["steps"], new["steps"]
    if len(new_steps) != len(old_steps):
        found.append(("steps", str(len(new_steps)), str(len(old_steps))))
    per_step: dict[str, list[tuple[int, str, str]]] = {}
    for i, (a, b) in enumerate(zip(old_steps, new_steps)):
        for key in dict.fromkeys([*a, *b]):
            if key != "name" and a.get(key) != b.get(key):
                per_step.setdefault(key, []).append((i, _shown(b.get(key)), _shown(a.get(key))))
    for key, edits in per_step.items():
        if len(edits) == len(new_steps) > 1 and len({(n, o) for _i, n, o in edits}) == 1:
            found.append((f"steps[*].{key}", edits[0][1], edits[0][2]))
        else:
            found.extend((step_field_path(i, key), n, o) for i, n, o in edits)
    return found


def _value(table: dict[str, Any], profile: Profile, key: str) -> Any:
    """A profile key as its file says it, or as the editor shows it where the file leaves it out."""
    return table.get(key, PROFILE_DEFAULTS.get(key, getattr(profile, key)))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return " ".join(map(str, value)) or "-"
    return "-" if value is None else str(value)
