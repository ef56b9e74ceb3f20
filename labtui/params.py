"""Profile parameters: values a person supplies at run time, used as `{name}` in command steps.

A profile declares them (`[params.archive]` with a description, an optional default and a type,
read by labtui.results.profile_file);
the CLI takes `--param archive=PATH`, the TUI asks for them. In a step's `command`, `setup` and
`cleanup` a placeholder becomes the value quoted for the shell (a path with spaces stays one
word); in `workdir`, which is a path and not shell text, the plain value. Two names are built in:
`{target}` (the target directory) and `{scratch}` (a fresh empty directory labtui makes for the
step in the target directory and removes afterwards, with everything in it).

Only `{identifier}` not preceded by `$` is a placeholder, so shell text such as `${HOME}`,
`awk '{print $1}'` or `{a,b}` passes through untouched; `{{name}}` is a literal `{name}`.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labtui.errors import ValidationError

PARAM_TYPES = ("text", "file", "directory")
BUILTIN_NAMES = ("target", "scratch")
# Step fields that may hold placeholders; only `workdir` takes plain (unquoted) values.
TEMPLATE_FIELDS = ("command", "workdir", "setup", "cleanup")
SHELL_FIELDS = ("command", "setup", "cleanup")

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# `{{` and `}}` are escapes; `{name}` is a placeholder unless a `$` comes right before it.
_TOKEN_RE = re.compile(r"\{\{|\}\}|(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")
_QUOTED_RE = re.compile(r"""(["'])\{[A-Za-z_][A-Za-z0-9_]*\}\1""")


@dataclass(frozen=True)
class Param:
    """One parameter a profile declares. No default means the person must give a value."""

    name: str
    description: str = ""
    default: str | None = None
    type: str = "text"  # "file" and "directory" values are checked to exist and made absolute

    @property
    def required(self) -> bool:
        return self.default is None

    def validate(self, where: str = "params") -> None:
        at = f"{where}.{self.name}"
        if not _NAME_RE.match(self.name):
            raise ValidationError("a parameter name is letters, digits and '_', not starting with a digit", at)
        if self.name in BUILTIN_NAMES:
            raise ValidationError(f"{{{self.name}}} is built in: choose another parameter name", at)
        if self.type not in PARAM_TYPES:
            raise ValidationError(f"type must be one of {', '.join(PARAM_TYPES)}, got {self.type!r}", f"{at}.type")


def placeholders(text: str) -> list[str]:
    """The placeholder names in `text`, in order (escaped `{{name}}` is not one)."""
    return [m.group(1) for m in _TOKEN_RE.finditer(text) if m.group(1)]


def check_template(text: str, known: Iterable[str], where: str, *, shell: bool) -> set[str]:
    """Raise ValidationError for an unknown or self-quoted placeholder; return the names used."""
    known = set(known)
    used = set()
    for name in placeholders(text):
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean {{{close[0]}}}?)" if close else ""
            raise ValidationError(
                f"unknown placeholder {{{name}}}{hint}: declare it as [params.{name}], "
                f"or write {{{{{name}}}}} for the literal text",
                where,
            )
        used.add(name)
    if shell:
        quoted = _QUOTED_RE.search(text)
        if quoted:
            raise ValidationError(
                f"remove the quotes around {quoted.group(0)[1:-1]}: labtui quotes the value for the shell itself",
                where,
            )
    return used


def expand(text: str, values: Mapping[str, str], *, shell: bool) -> str:
    """`text` with every placeholder replaced by its value (shell-quoted when `shell`)."""

    def replace(match: re.Match) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        value = values[match.group(1)]
        return shlex.quote(value) if shell else value

    return _TOKEN_RE.sub(replace, text)


def parse_assignments(items: Iterable[str], option: str = "--param") -> dict[str, str]:
    """`NAME=VALUE` strings (the CLI's --param) as a dict; ValidationError for a malformed one."""
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValidationError(f"expected NAME=VALUE, got {item!r}", option)
        if name in values and values[name] != value:
            raise ValidationError(f"{name} is given twice ({values[name]!r} and {value!r})", option)
        values[name] = value
    return values


def resolve(declared: Iterable[Param], given: Mapping[str, str], profile: str = "the profile",
            cwd: str | None = None) -> dict[str, str]:
    """The value of every declared parameter: given, else its default.

    ValidationError (one line, naming the parameter) for an unknown name, a missing required
    value, an empty value, or a file/directory that does not exist. File and directory values
    become absolute paths, since steps run in the target directory, not where labtui started.
    """
    declared = list(declared)
    names = [p.name for p in declared]
    for name in given:
        if name not in names:
            if not names:
                raise ValidationError(f"{profile} takes no parameters, got {name!r}", "--param")
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValidationError(f"{profile} has no parameter {name!r} ({hint}it takes {', '.join(names)})",
                                  "--param")
    values: dict[str, str] = {}
    for param in declared:
        value = given.get(param.name, param.default)
        if value is None:
            what = f": {param.description}" if param.description else ""
            example = {"file": "PATH", "directory": "DIR"}.get(param.type, "VALUE")
            raise ValidationError(f"{profile} needs --param {param.name}={example}{what}")
        if not value.strip() or "\0" in value:
            raise ValidationError(f"the value of {param.name} is empty or not text", "--param")
        values[param.name] = _checked_path(param, value, cwd) if param.type != "text" else value
    return values


def _checked_path(param: Param, value: str, cwd: str | None) -> str:
    path = os.path.abspath(os.path.join(cwd or os.getcwd(), os.path.expanduser(value)))
    if param.type == "file":
        if os.path.isdir(path):
            raise ValidationError(f"{path} is a directory, not a file", param.name)
        if not os.path.isfile(path):
            raise ValidationError(f"no such file: {path}", param.name)
        if not os.access(path, os.R_OK):
            raise ValidationError(f"permission denied: cannot read {path}", param.name)
    elif not os.path.isdir(path):
        raise ValidationError(f"no such directory: {path}", param.name)
    return path
