"""Profile parameters: declaration, placeholders, shell quoting, resolution of --param values."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from hypothesis import given, strategies as st

from labtui.errors import ValidationError
from labtui.params import Param, expand, parse_assignments, placeholders, resolve, shell_contexts
from labtui.results.profile_file import profile_from_table, profile_to_table


def profile_data(params=None, **step):
    data = {
        "name": "cmd",
        "params": {"archive": {"description": "the archive"}} if params is None else params,
        "steps": [{"name": "Extract", "kind": "command", "command": "zpaq x {archive} -to {scratch}"} | step],
    }
    return data


def rejected(data) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        profile_from_table(data)
    return info.value


def test_a_parameter_is_declared_as_a_table_and_round_trips():
    profile = profile_from_table(profile_data({"archive": {"description": "the archive", "type": "file"},
                                              "level": {"default": "1"}},
                                             command="zpaq x {archive} -to {scratch} -method {level}"))
    assert profile.params == (Param("archive", "the archive", None, "file"), Param("level", "", "1", "text"))
    assert [p.required for p in profile.params] == [True, False]
    assert profile_from_table(profile_to_table(profile)) == profile
    assert profile_to_table(profile)["params"] == {"archive": {"description": "the archive", "type": "file"},
                                           "level": {"description": "", "default": "1"}}


@pytest.mark.parametrize(
    "data, field, reason",
    [
        (profile_data(command="zpaq x {archiv}"), "steps[1].command", "unknown placeholder {archiv} (did you mean {archive}?)"),
        (profile_data(cleanup="rm -rf {scrach}"), "steps[1].cleanup", "did you mean {scratch}?"),
        (profile_data(workdir="{nowhere}"), "steps[1].workdir", "unknown placeholder {nowhere}"),
        (profile_data(command="zpaq x '{archive}'"), "steps[1].command",
         "step 'Extract', line 1: {archive} is inside single quotes"),
        (profile_data(setup='ls "{archive}"', command="true {archive}"), "steps[1].setup",
         "{archive} is inside double quotes, where its value cannot be quoted for the shell"),
        (profile_data(command='true\nls -la "{target}/." {archive}'), "steps[1].command",
         "step 'Extract', line 2: {target} is inside double quotes"),
        (profile_data(command="zpaq x backup.zpaq"), "params.archive", "no step uses {archive}"),
        (profile_data({"archive": "the archive"}), "params.archive", "a parameter is a table"),
        (profile_data({"archive": {"descripton": "x"}}), "params.archive", "did you mean 'description'?"),
        (profile_data({"archive": {"default": 3}}), "params.archive.default", "must be a string"),
        (profile_data({"archive": {"type": "path"}}), "params.archive.type", "file, directory"),
        (profile_data({"target": {}}, command="ls {target}"), "params.target", "built in"),
        (profile_data({"2nd": {}}, command="ls"), "params.2nd", "not starting with a digit"),
        (profile_data(["archive"]), "params", "tables such as [params.archive]"),
    ],
)
def test_parameter_errors_name_their_field(data, field, reason):
    error = rejected(data)
    assert error.field == field and reason in error.reason, str(error)


def test_shell_text_that_is_not_a_placeholder_passes_through():
    text = "echo ${HOME} $(date) {a,b} {{archive}} | awk '{print $1}' {archive}"
    assert placeholders(text) == ["archive"]
    out = expand(text, {"archive": "my file.zpaq"}, shell=True)
    assert out == "echo ${HOME} $(date) {a,b} {archive} | awk '{print $1}' 'my file.zpaq'"
    profile_from_table(profile_data(command=text))  # declared and used: valid


@given(st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\0"), min_size=1, max_size=40))
def test_a_value_reaches_the_command_as_one_word_whatever_it_holds(value):
    command = expand("printf '%s\\n' {archive} {archive}", {"archive": value}, shell=True)
    assert shlex.split(command)[2:] == [value, value]


def test_a_path_with_spaces_and_quotes_survives_a_real_shell(tmp_path):
    weird = tmp_path / "it's a \"dir\" $HOME"
    weird.mkdir()
    command = expand("ls -d {archive}", {"archive": str(weird)}, shell=True)
    out = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(weird)


def test_workdir_takes_the_plain_value():
    assert expand("{target}/sub {x}", {"target": "/a b", "x": "c'd"}, shell=False) == "/a b/sub c'd"


def test_parse_assignments():
    assert parse_assignments(["archive=/x=y.zpaq", "level=3", "level=3"]) == {"archive": "/x=y.zpaq", "level": "3"}
    for bad, reason in ((["archive"], "NAME=VALUE"), (["=x"], "NAME=VALUE"), (["a=1", "a=2"], "given twice")):
        with pytest.raises(ValidationError, match=reason):
            parse_assignments(bad)


def test_resolve_fills_defaults_checks_files_and_makes_them_absolute(tmp_path):
    archive = tmp_path / "a b.zpaq"
    archive.write_bytes(b"x")
    declared = [Param("archive", "the archive", type="file"), Param("level", default="1"),
                Param("out", type="directory", default=".")]
    values = resolve(declared, {"archive": "a b.zpaq"}, "profile p", cwd=str(tmp_path))
    assert values == {"archive": str(archive), "level": "1", "out": str(tmp_path)}


@pytest.mark.parametrize(
    "given_values, reason",
    [
        ({}, "profile p needs --param archive=PATH: the archive"),
        ({"archiv": "x"}, "has no parameter 'archiv' (did you mean 'archive'? it takes archive, level)"),
        ({"archive": "missing.zpaq"}, "no such file: "),
        ({"archive": "."}, "is a directory, not a file"),
        ({"archive": " "}, "empty"),
    ],
)
def test_resolve_errors(tmp_path, given_values, reason):
    declared = [Param("archive", "the archive", type="file"), Param("level", default="1")]
    with pytest.raises(ValidationError) as info:
        resolve(declared, given_values, "profile p", cwd=str(tmp_path))
    assert reason in str(info.value)


def test_a_profile_without_parameters_refuses_any():
    with pytest.raises(ValidationError, match="takes no parameters"):
        resolve([], {"x": "1"}, "profile quick-sanity")


# Shell text and where /bin/sh reads each placeholder in it: None is plain text, where a quoted value
# stays one word; anything else is refused when the profile loads.
CONTEXTS = [
    ("zpaq x {archive} -to {archive}", [None, None]),
    ('x="a"{archive}"b" {archive}/.', [None, None]),
    ('ls -la "{archive}/."', ["inside double quotes"]),
    ('sh -c "test -d {archive}"', ["inside double quotes"]),
    ("echo '{archive}'", ["inside single quotes"]),
    ('echo "$(ls {archive})" $(cat {archive})', [None, None]),
    ("echo `ls {archive}`", ["inside backquotes (`...`)"]),
    ("echo ${x:-{archive}} $(( {archive} + 1 ))", ["inside ${...}", "inside $((...))"]),
    ("cat <<EOF\n{archive}\nEOF\necho {archive}", ["in a here-document", None]),
    ("cat <<-'E' >f\n\t{archive}\n\tE\nls {archive}", ["in a here-document", None]),
    ("echo \\{archive} {archive}", ["after a backslash", None]),
    ("true # {archive}\necho {archive}", ["in a comment", None]),
    ('echo "a\\"{archive}" $(echo \')\' {archive})', ["inside double quotes", None]),
]


@pytest.mark.parametrize("text, contexts", CONTEXTS)
def test_where_the_shell_reads_each_placeholder(text, contexts):
    assert [where for _match, _line, where in shell_contexts(text)] == contexts


HOSTILE_VALUES = ["x$(touch {mark})", "x`touch {mark}`", "x'$(touch {mark})'", 'x"$(touch {mark})"',
                  "x\ntouch {mark}\n", "x;touch {mark}", "[/]", "a" * 4096]


def contexts_of(template: str) -> list[str | None]:
    return [where for _match, _line, where in shell_contexts(template)]


def test_no_value_runs_as_a_command_where_a_placeholder_is_allowed(tmp_path):
    """Every template the lexer lets through gives each hostile value to a real /bin/sh as that very text."""
    mark = tmp_path / "ran"
    allowed = [text for text, contexts in CONTEXTS if None in contexts]
    for template in allowed:
        probe = "printf '<%s>' " + " ".join(m.group(0) for m, _l, where in shell_contexts(template) if where is None)
        for value in HOSTILE_VALUES:
            value = value.format(mark=mark)
            out = subprocess.run(["/bin/sh", "-c", expand(probe, {"archive": value}, shell=True)],
                                 capture_output=True, text=True, cwd=tmp_path)
            assert out.stdout.startswith(f"<{value}>"), (template, value, out.stdout, out.stderr)
            if set(contexts_of(template)) == {None}:
                # The template itself, with the value: nothing in the value runs (what it runs is its own).
                subprocess.run(["/bin/sh", "-c", expand(template, {"archive": value}, shell=True)],
                               capture_output=True, cwd=tmp_path, timeout=10, stdin=subprocess.DEVNULL)
            assert not mark.exists(), (template, value)


def test_expanding_refuses_a_placeholder_that_cannot_be_quoted():
    """The last guard before a shell: a profile that skipped its check still never splices a value into quotes."""
    with pytest.raises(ValidationError, match="inside double quotes"):
        expand('ls "{target}/."', {"target": "/x$(touch /tmp/p)"}, shell=True)
    assert expand('ls "{target}/."', {"target": "/x"}, shell=False) == 'ls "/x/."'  # workdir: no shell
