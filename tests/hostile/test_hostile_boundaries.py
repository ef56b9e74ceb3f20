"""Every boundary where text from outside labtui enters passes it through one sanitiser (labtui.printable).

sysfs (a USB stick chooses its own model and serial), a mount point (anyone who may mount a FUSE
file system names it), a lock file's holder, a command's output, a path in a message, the host's
own name, an imported report, a result file: each is fed the corpus and must keep it as its
visible form, markup untouched (the screens and prints read none: test_hostile_screens.py and
test_hostile_cli.py), the controls escaped. A fleet host's messages: test_hostile_hosts.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

from corpus import ALL_MARKUP, ESCAPES, HOSTILE, RAW, shown
from factories import make_result
from fakesys import NVME_CTRL, SATA_SCSI, USB_DEVICE, build_lab_machine, vpd_pg80
from labtui.engine.command.engine import output_tail
from labtui.machine import devices
from labtui.machine.paths import shown as shown_path
from labtui.results.result_file import result_from_toml, result_to_toml
from labtui.run import target_lock

# What a file or a kernel attribute can hold: no NUL, no "/" for a name, ASCII for a VPD page.
NAMEABLE = "evil " + "".join(v for k, v in ESCAPES.items() if k != "osc8") + " " + ALL_MARKUP


def test_sysfs_models_and_serials_are_read_printable(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    fake.file(f"{NVME_CTRL}/model", f"NVMe {HOSTILE}")
    fake.file(f"{SATA_SCSI}/vpd_pg80", vpd_pg80("S\x1b[2J\x071"))  # a VPD page is ASCII
    fake.file(f"{USB_DEVICE}/serial", "USB\x1b]0;pwned\x07")
    disks = {d.name: d for d in devices.list_disks(fake.root)}
    assert disks["nvme0n1"].model == shown(f"NVMe {HOSTILE}")
    assert disks["sda"].serial == "S\\x1b[2J\\x071" and disks["sdb"].serial == "USB\\x1b]0;pwned\\x07"
    texts = [v for d in disks.values() for v in devices.as_dict(d).values() if isinstance(v, str)]
    assert not [t for t in texts if RAW.search(t)]


def test_a_mount_point_is_read_printable_and_still_holds_what_is_under_it(tmp_path):
    # mountinfo escapes space, tab, newline and backslash; everything else comes as the name has it
    # (the NEL, \x85, broke the line in two under str.splitlines()).
    raw = str(tmp_path / NAMEABLE)  # as the kernel names it ("https://" is a directory "https:")
    (tmp_path / NAMEABLE / "labtui").mkdir(parents=True)
    octal = raw.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012")
    mountinfo = ("25 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
                 f"90 25 0:50 / {octal} rw,nosuid shared:40 - fuse.evil evil{ESCAPES['clear']} rw\n")
    volumes = devices.list_volumes(tmp_path, mountinfo, usage=False)
    assert [v.mount_point for v in volumes] == ["/", shown(raw, one_line=True)]
    assert volumes[1].source == shown(f"evil{ESCAPES['clear']}") and volumes[1].filesystem == "fuse.evil"
    # A path under it is its, not the root volume's (whose disk a result would have credited).
    assert devices.volume_of(f"{raw}/labtui", volumes).mount_point == shown(raw, one_line=True)


def test_a_lock_file_s_holder_is_said_printable(tmp_path):
    # Another run holds the disk; what its lock file says of it (pid, target) is anyone's who could write it.
    held = subprocess.Popen([sys.executable, "-c", "import sys\nfrom labtui.run import target_lock\n"
                             "lock, problem = target_lock.hold(sys.argv[1])\nprint('held', flush=True)\n"
                             "sys.stdin.read()\n", str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert held.stdout.readline() == "held\n"
        (lock,) = target_lock.lock_dir().glob("labtui-disk-*.lock")
        lock.write_text(f'{{"pid": {held.pid}, "target": "{HOSTILE.replace(chr(92), chr(92) * 2)}"}}'
                        .replace("\x1b", "\\u001b").replace("\x07", "\\u0007").replace("\x08", "\\u0008")
                        .replace("\r", "\\r"))
        try:
            target_lock.hold(tmp_path)
        except target_lock.TargetBusy as exc:
            said = str(exc)
        else:
            raise AssertionError("the disk was not busy")
    finally:
        held.stdin.close()
        held.wait(timeout=10)
    assert f"-t {shown(HOSTILE)})" in said and not RAW.search(said), said


def test_what_a_tool_printed_on_its_stderr_is_read_printable():
    # fio's and DiskSpd's errors name files anyone could make; a command's output goes by output_tail.
    import asyncio

    from labtui.engine import subproc

    async def read(raw: bool) -> str:
        stream = asyncio.StreamReader()
        stream.feed_data(f"fio: {HOSTILE}\n".encode())
        stream.feed_eof()
        sink: list[str] = []
        await subproc.read_all(stream, sink, raw=raw)
        return "".join(sink)

    assert asyncio.run(read(raw=False)) == f"fio: {shown(HOSTILE)}\n"
    assert asyncio.run(read(raw=True)) == f"fio: {HOSTILE}\n"  # DiskSpd's XML, parsed as it came


def test_what_a_command_printed_and_a_path_in_a_message_are_printable(monkeypatch):
    # (A carriage return ends a line there: a progress bar's redraws are lines of their own.)
    assert output_tail(f"one\n{HOSTILE}\n") == f"one\n{shown(HOSTILE.replace(chr(13), chr(10)))}"
    assert shown_path(f"/mnt/x{ESCAPES['clear']}[/]") == "/mnt/x\\x1b[2J\\x1b[H[/]"
    monkeypatch.setattr(devices.socket, "gethostname", lambda: f"lab{ESCAPES['title']}")
    assert devices.host_info().name == "lab\\x1b]0;pwned\\x07"


def test_a_result_file_from_anywhere_reads_back_printable():
    result = make_result()
    step = replace(result.steps[0], step=replace(result.steps[0].step, name=f"step {HOSTILE}"))
    back = result_from_toml(result_to_toml(replace(result, steps=(step,), warnings=(HOSTILE,), tags=(ALL_MARKUP,),
                                                   target=replace(result.target, model=HOSTILE))))
    assert back.steps[0].name == f"step {shown(HOSTILE)}" and back.warnings == (shown(HOSTILE),)
    assert back.target.model == shown(HOSTILE) and back.tags == (ALL_MARKUP,)


def test_an_imported_report_reads_back_printable():
    """A fio or DiskSpd report from another lab: its job names, host, version, disk and file names are outside text."""
    from dataclasses import fields, is_dataclass

    from conftest import FIXTURES
    from labtui.results.imports import import_text

    def strings(value) -> list[str]:
        if isinstance(value, str):
            return [value]
        if is_dataclass(value):
            return [s for f in fields(value) for s in strings(getattr(value, f.name))]
        if isinstance(value, (tuple, list)):
            return [s for v in value for s in strings(v)]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in strings(k) + strings(v)]
        return []

    fio = json.loads((FIXTURES / "fio-json" / "fio-3.1-randrw4k-qd4-nj16-libaio-mdraid.json").read_text())
    fio["fio version"] = f"fio-3.1 {NAMEABLE}"
    fio["disk_util"][0]["name"] = f"md0{NAMEABLE}"
    for job in fio["jobs"]:
        job["jobname"] = f"iotest {NAMEABLE}"
        job["job options"]["filename"] = f"/mnt/{NAMEABLE}"
    xml = (FIXTURES / "diskspd-xml" / "diskspd-2.2.0-seq1m-q8t1-write-nolatency.xml").read_text()
    # XML holds no C0 control, even as a reference: its C1 controls and a bidirectional override it can hold.
    in_xml = f"evil {ESCAPES['c1']} {ESCAPES['bidi']} {ALL_MARKUP}"
    escaped = in_xml.replace("&", "&amp;").replace("<", "&lt;")
    xml = xml.replace("<ComputerName>LAPTOP-75SSPCEP", f"<ComputerName>LAPTOP {escaped}").replace(
        r"<Path>C:\Users", f"<Path>C:\\{escaped}\\Users")
    for text, name, hostile in ((json.dumps(fio), "fio.json", NAMEABLE), (xml, "diskspd.xml", in_xml)):
        seen = strings(import_text(text, name))
        assert not [s for s in seen if RAW.search(s)], name
        assert any(shown(hostile) in s for s in seen), f"{name}: the hostile text was not kept as its visible form"
        assert any(ALL_MARKUP in s for s in seen), f"{name}: the markup is kept as text"
