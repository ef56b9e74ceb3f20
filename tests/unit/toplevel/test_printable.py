"""Text from outside labtui made safe to print (labtui/printable.py): controls shown as escapes, not obeyed; a one-line
fact escapes its newlines too; a narrow cell gets the words alone; an edited field one visible character for each.
Every boundary that uses it: tests/hostile/test_hostile_boundaries.py."""

from __future__ import annotations

from dataclasses import dataclass

from labtui.printable import SHOWN_CHARS, path_text, pictured, plain_words, printable, printable_fields, shown


def test_controls_a_terminal_would_obey_are_shown_as_their_escapes():
    assert printable("plain text, tabs\tand\nnewlines") == "plain text, tabs\tand\nnewlines"
    assert printable("\x1b[2Jgone\rover\x07\x9b31m") == "\\x1b[2Jgone\\x0dover\\x07\\x9b31m"
    assert printable("abc\u202eevil\u2066") == "abc\\u202eevil\\u2066"  # "Trojan source" reordering
    assert printable("model\nserial\t1", one_line=True) == "model\\x0aserial\\x091"
    assert path_text("/mnt/a\nb") == "/mnt/a\\x0ab"


def test_a_long_path_is_shown_by_its_start_and_its_length():
    assert shown("/mnt/x") == "/mnt/x"
    long = "/" + "d" * 4999
    said = shown(long)
    assert said.endswith("… (5000 characters)") and len(said) < SHOWN_CHARS and said.startswith("/ddd")


def test_a_narrow_cell_gets_the_words_and_an_edited_field_one_character_for_each():
    assert plain_words("ssh: \x1b[31mconnect\x1b[0m refused\r\n  try\tagain") == "ssh: connect refused try again"
    assert plain_words(printable("\x1b]8;;http://x\x07link\x1b]8;;\x07 here")) == "link here"
    assert pictured("a\nb\x1bc\x7f\x85") == "a\u240ab\u241bc\u2421\ufffd"
    assert len(pictured("dir\x00name")) == len("dir\x00name")


@dataclass(frozen=True)
class Row:
    name: str
    tags: tuple[str, ...]
    extra: dict


def test_every_string_inside_a_record_is_made_printable_and_a_clean_one_is_kept_as_it_is():
    row = Row("step\x1b[8m", ("ok", "bad\x07"), {"k": ["v\x1b"]})
    assert printable_fields(row) == Row("step\\x1b[8m", ("ok", "bad\\x07"), {"k": ["v\\x1b"]})
    # A record with nothing to escape is the same record (results are read by the thousand).
    clean = (Row.__name__, ("ok", "fine"))
    assert printable_fields(clean) is clean


def test_a_refusal_on_a_dialogs_line_is_a_sentence():
    from labtui.printable import sentence

    assert sentence("permission denied: cannot write in /x") == "Permission denied: cannot write in /x"
    assert sentence("/tmp/x exists") == "/tmp/x exists" and sentence("") == ""
