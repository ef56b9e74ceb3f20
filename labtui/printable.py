"""Text from outside labtui made safe to print: control characters shown as escapes, not obeyed.

A job name in a fio report, a path in a DiskSpd report, a step name in a result file from
another lab: any of them may hold terminal escape sequences (ESC [ ... , OSC 8 links, a bell,
carriage returns that overwrite the line) or bidirectional overrides that reorder what is
shown. Printed raw, they would recolour, move or hide what labtui prints, or reach the person's
terminal as commands. They are replaced by their visible escape (ESC becomes the four
characters "\\x1b") where such text enters labtui, and only there: imports, result and profile
files, a fleet host's messages (labtui.fleet.wire.host_message), sysfs and mount points
(labtui.machine.devices), a lock file's holder, a command's output, a path in a message
(labtui.machine.paths.shown), the folders the TUI lists. Tabs and newlines stay: a command's
output keeps its lines; a fact that is one line (a disk's model, a mount point) escapes them too
(`one_line`), so that no name can start a line that looks like labtui's own.
"""

from __future__ import annotations

import os
import re
from dataclasses import fields, is_dataclass, replace
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings,
# overrides and isolates (what "Trojan source" uses to show text in another order).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, one_line: bool = False) -> str:
    """`text` with every control character that a terminal would act on shown as its escape
    (`one_line`: newlines and tabs too)."""
    unsafe = _UNSAFE_IN_A_LINE if one_line else _UNSAFE
    return unsafe.sub(_escape, text) if unsafe.search(text) else text


# A terminal's escape sequences, raw or as `printable` shows them ("\\x1b[31m"): CSI (ESC [ or the
# C1 0x9b, then parameters and a final letter), OSC (ESC ], up to BEL or ESC \\), and ESC with one
# more character; then any other control, raw or shown.
_SEQUENCES = re.compile(
    r"(?:\x1b|\\x1b)\[[0-?]*[ -/]*[@-~]|(?:\x9b|\\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b|\\x1b)\].*?(?:\x07|\\x07|\x1b\\|\\x1b\\)|(?:\x1b|\\x1b)[@-Z\\-_]"
    r"|\\x[0-9a-f]{2}|\\u20(?:2[a-e]|6[6-9])|[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)


def sentence(said: str) -> str:
    """A refusal shown alone on a dialog's line, said as a sentence ("Permission denied: ...", "No such
    directory: ..."): the reasons come lowercase, made to follow "labtui: " or a clause of the CLI."""
    return said[:1].upper() + said[1:]


def plain_words(text: str) -> str:
    """`text` (a host's reason, an ssh error) as words on one line, for a cell too narrow for the
    whole of it: its escape sequences and controls dropped, raw or as `printable` showed them (the
    whole text, with them shown, is for a view of its own), line breaks and tabs as spaces."""
    return " ".join(_SEQUENCES.sub(" ", text).split())


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    # Unicode's control pictures (␊ for a newline, ␛ for ESC, ␡ for DEL); a replacement character for the rest.
    return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else "\ufffd"


def pictured(text: str) -> str:
    """`text` with every control character drawn as one visible character: for a field being edited,
    where each character must stay one (the cursor is placed by position), yet none may reach the
    terminal (a newline in a directory's name broke the line it was shown on)."""
    return _UNSAFE_IN_A_LINE.sub(_picture, text) if _UNSAFE_IN_A_LINE.search(text) else text


# Past this a path is shown by its start and its length: a pasted 5000-character path must not
# fill the screen, and the message must still fit on a line.
SHOWN_CHARS = 120


def path_text(path: str | os.PathLike) -> str:
    """`path` printed whole, in one line: a name is anyone's who could make it, so an escape code in it
    is shown, not obeyed, and a newline is shown as `\\x0a`, never starting a line of labtui's own."""
    return printable(os.fspath(path), one_line=True)


def shown(path: str | os.PathLike) -> str:
    """`path` as a message shows it: `path_text`, whole or its start and how long it is."""
    text = path_text(path)
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS - 40]}… ({len(text)} characters)"


def printable_fields(value: Any) -> Any:
    """`value` (a dataclass, tuple, list, dict or string, nested) with every string made printable."""
    if isinstance(value, str):
        return printable(value)
    if is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in fields(value):
            if not f.init:
                continue
            item = getattr(value, f.name)
            cleaned = printable_fields(item)
            if cleaned is not item:
                changes[f.name] = cleaned
        return replace(value, **changes) if changes else value
    if isinstance(value, tuple):
        items = tuple(printable_fields(v) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, list):
        return [printable_fields(v) for v in value]
    if isinstance(value, dict):
        return {printable_fields(k): printable_fields(v) for k, v in value.items()}
    return value
