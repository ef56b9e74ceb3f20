"""The hostile corpus: escape sequences and markup that text from outside labtui may hold.

Every boundary where outside text enters labtui (a host's messages, a file, sysfs, a lock file,
an import, a device model, a mount point) is fed these in tests/hostile/, and so is every place
that shows such text (toasts, titles, tables, the CLI's prints). Nothing may crash, obey them, or
print them raw: the escapes are shown as their visible form ("\\x1b[2J"), the markup as itself.
"""

from __future__ import annotations

import re

# What a terminal obeys: clear the screen and home the cursor, an OSC 8 link, a window title, the
# C1 spelling of CSI (0x9b) and NEL (0x85), a bell, a carriage return that overwrites the line, a
# backspace, and a bidirectional override that shows text in another order ("Trojan source").
ESCAPES = {
    "clear": "\x1b[2J\x1b[H",
    "osc8": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "title": "\x1b]0;pwned\x07",
    "c1": "\x9b2J\x85",
    "overwrite": "ok\rFAKE\x08",
    "bidi": "\u202eevil\u202c",
}
# What Rich or Textual would read as markup: an unbalanced close (a MarkupError that ended the TUI),
# a colour (the text vanished), a link, and a Textual action a click would run.
MARKUP = {
    "close": "[/]",
    "red": "[red]",
    "link": "[link=https://evil.example]link[/link]",
    "click": "[@click=app.quit]quit[/]",
}
# One string with all of them, as a host's warning or a disk's model would carry them.
ALL_ESCAPES = "".join(ESCAPES.values())
ALL_MARKUP = " ".join(MARKUP.values())
HOSTILE = f"evil {ALL_ESCAPES} {ALL_MARKUP} end"

# What must never reach a terminal from outside text: the escapes' introducers and the controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
RAW_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Rich's and Textual's own output on a terminal: colours (SGR) and the live display's cursor moves.
OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;?]*[mKAhl]|\r|\n")


def shown(text: str, *, one_line: bool = False) -> str:
    """`text` as labtui shows it: every control escaped, with `one_line` newlines and tabs too
    (labtui.printable's rule, spelt again here so the test does not trust the code it tests)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return (RAW_IN_A_LINE if one_line else RAW).sub(escape, text)


def assert_not_raw(output: str, *, terminal: bool = False) -> None:
    """No control character from the corpus in `output`; on a terminal (`terminal`), only the
    colours and cursor moves Rich itself writes, and none of the corpus's own sequences."""
    text = OWN_SEQUENCES.sub("", output) if terminal else output.replace("\n", "").replace("\t", "")
    for sequence in ("\x1b[2J", "\x1b]8;;https://evil", "\x1b]0;pwned", "\x9b", "\x85", "\u202e", "\x07", "\x08"):
        assert sequence not in output, f"{sequence!r} reached the output raw"
    bad = RAW.search(text)
    assert bad is None, f"{bad.group()!r} reached the output raw near {text[max(0, bad.start() - 40):bad.end() + 40]!r}"
