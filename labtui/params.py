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

A value never reaches a shell unquoted. `shlex.quote` makes a value one word only where the shell
reads the placeholder as plain text; inside double quotes its single quotes are literal (a
directory named `x$(touch /tmp/p)` in `ls "{target}/."` ran `touch` as root), and no quoting
labtui could add survives text handed on to a second shell (`sh -c "test -d {target}"`), since
only the profile's author knows how many shells it passes through. So a placeholder anywhere but
plain shell text (inside quotes, backquotes, `${...}`, `$((...))`, a here-document, after a
backslash) is refused when the profile loads, naming the step and the line, and every value is
also in the command's environment as `LABTUI_PARAM_<name>`, which reaches any shell as data:
`sh -c 'test -d "$LABTUI_PARAM_target"'`. Refusing serves hand-written profiles better than
rewriting them: the author sees the problem at once, where a rewrite would silently change what
a command receives. The built-in profiles use placeholders as plain words and are unchanged.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labtui.errors import ValidationError
from labtui.printable import shown

PARAM_TYPES = ("text", "file", "directory")
BUILTIN_NAMES = ("target", "scratch")
# Step fields that may hold placeholders; only `workdir` takes plain (unquoted) values.
TEMPLATE_FIELDS = ("command", "workdir", "setup", "cleanup")
SHELL_FIELDS = ("command", "setup", "cleanup")

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# `{{` and `}}` are escapes; `{name}` is a placeholder unless a `$` comes right before it.
_TOKEN_RE = re.compile(r"\{\{|\}\}|(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")
ENV_PREFIX = "LABTUI_PARAM_"  # every value is in a command's environment under this prefix and its name


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


def check_template(text: str, known: Iterable[str], where: str, *, shell: bool, step: str | None = None) -> set[str]:
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
        refusal = quoting_refusal(text, step)
        if refusal:
            raise ValidationError(refusal, where)
    return used


def env_name(name: str) -> str:
    """The environment variable a command step finds the value of `{name}` in."""
    return f"{ENV_PREFIX}{name}"


def quoting_refusal(text: str, step: str | None = None) -> str | None:
    """Why a placeholder in shell `text` cannot be given its value safely (the first one), or None."""
    for match, line, where in shell_contexts(text):
        if where is None:
            continue
        name = match.group(1)
        at = f"step {step!r}, line {line}: " if step else (f"line {line}: " if "\n" in text.strip("\n") else "")
        return (f"{at}{{{name}}} is {where}, where its value cannot be quoted for the shell (a name holding "
                f"$(...) would run as a command): write {{{name}}} outside any quotes (labtui quotes it), or "
                f"\"${env_name(name)}\" (the value is in the command's environment)")
    return None


def expand(text: str, values: Mapping[str, str], *, shell: bool) -> str:
    """`text` with every placeholder replaced by its value (shell-quoted when `shell`).

    ValidationError for shell text with a placeholder where quoting cannot hold (profiles refuse
    it when they load; this keeps a profile that skipped that check from reaching a shell)."""
    if shell:
        refusal = quoting_refusal(text)
        if refusal:
            raise ValidationError(refusal)

    def replace(match: re.Match) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        value = values[match.group(1)]
        return shlex.quote(value) if shell else value

    return _TOKEN_RE.sub(replace, text)


# Where the shell would read a placeholder, if not as plain text: the contexts shell_contexts tracks.
_SINGLE, _DOUBLE, _BACKQUOTE = "inside single quotes", "inside double quotes", "inside backquotes (`...`)"
_BRACE, _ARITH = "inside ${...}", "inside $((...))"
_ESCAPED, _HEREDOC, _COMMENT = "after a backslash", "in a here-document", "in a comment"
_OPERATORS = " \t\n;&|()<>"


def shell_contexts(text: str) -> list[tuple[re.Match, int, str | None]]:
    """Each placeholder of shell `text` with its line and where the shell reads it: None for plain
    text (also inside `$(...)`, which the shell parses afresh), else the quoting it is in.

    A small lexer of POSIX sh's quoting (what /bin/sh parses before it expands anything): quotes,
    backslashes, `$(...)`, backquotes, `${...}`, `$((...))`, comments and here-documents. Where
    it could misread the shell, it errs towards a quoted context, which only refuses.
    """
    tokens = {m.start(): m for m in _TOKEN_RE.finditer(text)}
    found: list[tuple[re.Match, int, str | None]] = []
    stack: list[list] = [["cmd", 0]]  # [context, parentheses open in it], innermost last
    heredocs: list[tuple[str, bool]] = []  # (delimiter, tabs stripped) whose bodies start on the next line
    plain = {"cmd": None, "sub": None, "dq": _DOUBLE, "bq": _BACKQUOTE, "brace": _BRACE, "arith": _ARITH}

    def note(match: re.Match, where: str | None) -> None:
        if match.group(1):
            found.append((match, text.count("\n", 0, match.start()) + 1, where))

    def within(start: int, end: int, where: str) -> None:
        for at in range(start, end):
            if at in tokens:
                note(tokens[at], where)

    i, n = 0, len(text)
    while i < n:
        context = stack[-1]
        kind, c = context[0], text[i]
        if i in tokens:
            note(tokens[i], plain[kind])
            i = tokens[i].end()
        elif c == "\\":
            if i + 1 in tokens:
                note(tokens[i + 1], plain[kind] or _ESCAPED)
                i = tokens[i + 1].end()
            else:
                i += 2
        elif c == "'" and kind in ("cmd", "sub", "brace"):
            end = text.find("'", i + 1)
            end = n if end < 0 else end + 1
            within(i, end, _SINGLE)
            i = end
        elif c == "#" and kind in ("cmd", "sub") and (i == 0 or text[i - 1] in _OPERATORS):
            end = text.find("\n", i)
            end = n if end < 0 else end
            within(i, end, _COMMENT)  # a value's newline would end the comment, and the rest would run
            i = end
        elif text.startswith("<<", i) and kind in ("cmd", "sub") and not text.startswith("<<<", i):
            i = _here_document(text, i + 2, heredocs)
        elif c == "\n" and heredocs:
            end = _after_bodies(text, i + 1, heredocs)
            within(i + 1, end, _HEREDOC)
            heredocs.clear()
            i = end
        elif kind != "bq" and text.startswith("$((", i):
            stack.append(["arith", 0])
            i += 3
        elif kind != "bq" and text.startswith("$(", i):
            stack.append(["sub", 0])
            i += 2
        elif kind != "bq" and text.startswith("${", i):
            stack.append(["brace", 0])
            i += 2
        elif c == ")" and kind in ("sub", "arith") and context[1] == 0:
            stack.pop()
            i += 2 if kind == "arith" and text.startswith("))", i) else 1
        else:
            if c == '"' and kind == "dq":
                stack.pop()
            elif c == '"' and kind != "bq":
                stack.append(["dq", 0])
            elif c == "`":
                if kind == "bq":
                    stack.pop()
                else:
                    stack.append(["bq", 0])
            elif c == "}" and kind == "brace":
                stack.pop()
            elif c == "(" and kind in ("cmd", "sub", "arith"):
                context[1] += 1
            elif c == ")" and kind in ("cmd", "sub", "arith"):
                context[1] -= 1
            i += 1
    return found


def _here_document(text: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    """Note the here-document whose `<<` ends at `i`; where its delimiter word ends."""
    strip = text.startswith("-", i)
    i += strip
    while i < len(text) and text[i] in " \t":
        i += 1
    word = []
    while i < len(text) and text[i] not in _OPERATORS:
        if text[i] in "'\"":
            end = text.find(text[i], i + 1)
            end = len(text) if end < 0 else end
            word.append(text[i + 1 : end])
            i = end + 1
        elif text[i] == "\\":
            word.append(text[i + 1 : i + 2])
            i += 2
        else:
            word.append(text[i])
            i += 1
    heredocs.append(("".join(word), strip))
    return i


def _after_bodies(text: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    """Where the bodies of `heredocs`, one after another from `i`, end (each with its delimiter's line)."""
    for delimiter, strip in heredocs:
        while i < len(text):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip else line) == delimiter:
                break
    return min(i, len(text))


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
            raise ValidationError(f"{shown(path)} is a directory, not a file", param.name)
        if not os.path.isfile(path):
            raise ValidationError(f"no such file: {shown(path)}", param.name)
        if not os.access(path, os.R_OK):
            raise ValidationError(f"permission denied: cannot read {shown(path)}", param.name)
    elif not os.path.isdir(path):
        raise ValidationError(f"no such directory: {shown(path)}", param.name)
    return path


def hold_paths(declared: Iterable[Param], values: Mapping[str, str]) -> dict[str, int]:
    """Open every file and directory parameter's value once, as it was checked: {name: descriptor}.

    A name anyone else can write may lead elsewhere by the time a command step opens it (an archive
    swapped for a link to another file at "Go ahead?"); the step is handed what was opened here
    instead (labtui.engine.command). ValidationError (one line) where the value is no longer a
    readable file or directory of that kind; the caller closes the descriptors.
    """
    import stat

    held: dict[str, int] = {}
    try:
        for param in declared:
            if param.type == "text" or param.name not in values:
                continue
            path = values[param.name]
            flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK  # a FIFO must not block the run
            if param.type == "directory":
                flags |= os.O_DIRECTORY
            try:
                fd = os.open(path, flags)
            except OSError as exc:
                raise ValidationError(f"cannot open {shown(path)}: {exc.strerror or exc}", param.name) from None
            held[param.name] = fd
            if param.type == "file" and not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValidationError(f"{shown(path)} is not a regular file", param.name)
    except BaseException:
        for fd in held.values():
            os.close(fd)
        raise
    return held
