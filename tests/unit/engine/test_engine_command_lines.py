"""The fio and DiskSpd command lines of every built-in profile step, pinned.

A change here changes what every lab's fio or DiskSpd run measures: review it like a change of
the profiles themselves. Per step: fio's options (Linux, cache off: libaio), Windows DiskSpd's
arguments when it must create the file, and the Linux port's arguments on a prepared file.
"""

from __future__ import annotations

import shlex

import pytest

from labtui.engine.diskspd.engine import DiskSpdEngine, diskspd_arguments
from labtui.engine.fio.engine import FioEngine, fio_arguments
from labtui.model.profile import Step
from labtui.results.store import builtin_profiles

PINNED = {
    ('quick-sanity', 'Read 64K random'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=65536 --iodepth=8 --numjobs=4 --group_reporting --size=1073741824 --time_based --runtime=10 --ramp_time=2 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d10 -W2 -C0 -t4 -o8 -w0 -r64K -Su -L -D -c1G -Rxml',
        '-b64K -d10 -W2 -t4 -o8 -w0 -r64K -Sd -L -D',
    ),
    ('quick-sanity', 'Write 64K random'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=65536 --iodepth=8 --numjobs=4 --group_reporting --size=1073741824 --time_based --runtime=10 --ramp_time=2 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d10 -W2 -C0 -t4 -o8 -w100 -r64K -Su -L -D -Z1M -c1G -Rxml',
        '-b64K -d10 -W2 -t4 -o8 -w100 -r64K -Sd -L -D -Zr',
    ),
    ('configmgr-sql-quick', 'Read 64K random'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=60 --ramp_time=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d60 -W5 -C0 -t8 -o8 -w0 -r64K -Sh -L -D -c20G -Rxml',
        '-b64K -d60 -W5 -t8 -o8 -w0 -r64K -Sh -L -D',
    ),
    ('configmgr-sql-quick', 'Write 64K random'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --sync=dsync --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=60 --ramp_time=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d60 -W5 -C0 -t8 -o8 -w100 -r64K -Sh -L -D -Z1M -c20G -Rxml',
        '-b64K -d60 -W5 -t8 -o8 -w100 -r64K -Sh -L -D -Zr',
    ),
    ('configmgr-sql', 'Read 64K random 60s'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=60 --ramp_time=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d60 -W5 -C0 -t8 -o8 -w0 -r64K -Sh -L -D -c20G -Rxml',
        '-b64K -d60 -W5 -t8 -o8 -w0 -r64K -Sh -L -D',
    ),
    ('configmgr-sql', 'Read 64K random 300s'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=300 --ramp_time=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d300 -W5 -C0 -t8 -o8 -w0 -r64K -Sh -L -D -c20G -Rxml',
        '-b64K -d300 -W5 -t8 -o8 -w0 -r64K -Sh -L -D',
    ),
    ('configmgr-sql', 'Write 64K random 60s'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --sync=dsync --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=60 --ramp_time=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d60 -W5 -C0 -t8 -o8 -w100 -r64K -Sh -L -D -Z1M -c20G -Rxml',
        '-b64K -d60 -W5 -t8 -o8 -w100 -r64K -Sh -L -D -Zr',
    ),
    ('configmgr-sql', 'Write 64K random 300s'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --sync=dsync --bs=65536 --iodepth=8 --numjobs=8 --group_reporting --size=21474836480 --time_based --runtime=300 --ramp_time=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b64K -d300 -W5 -C0 -t8 -o8 -w100 -r64K -Sh -L -D -Z1M -c20G -Rxml',
        '-b64K -d300 -W5 -t8 -o8 -w100 -r64K -Sh -L -D -Zr',
    ),
    ('cdm-standard', 'SEQ1M Q8T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=read --bs=1048576 --iodepth=8 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o8 -w0 -s1M -Su -L -D -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o8 -w0 -s1M -Sd -L -D',
    ),
    ('cdm-standard', 'SEQ1M Q1T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=read --bs=1048576 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o1 -w0 -s1M -Su -L -D -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o1 -w0 -s1M -Sd -L -D',
    ),
    ('cdm-standard', 'RND4K Q32T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=4096 --iodepth=32 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o32 -w0 -r4K -Su -L -D -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o32 -w0 -r4K -Sd -L -D',
    ),
    ('cdm-standard', 'RND4K Q1T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=4096 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o1 -w0 -r4K -Su -L -D -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o1 -w0 -r4K -Sd -L -D',
    ),
    ('cdm-standard', 'SEQ1M Q8T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=write --bs=1048576 --iodepth=8 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o8 -w100 -s1M -Su -L -D -Z1M -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o8 -w100 -s1M -Sd -L -D -Zr',
    ),
    ('cdm-standard', 'SEQ1M Q1T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=write --bs=1048576 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o1 -w100 -s1M -Su -L -D -Z1M -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o1 -w100 -s1M -Sd -L -D -Zr',
    ),
    ('cdm-standard', 'RND4K Q32T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=4096 --iodepth=32 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o32 -w100 -r4K -Su -L -D -Z1M -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o32 -w100 -r4K -Sd -L -D -Zr',
    ),
    ('cdm-standard', 'RND4K Q1T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=4096 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o1 -w100 -r4K -Su -L -D -Z1M -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o1 -w100 -r4K -Sd -L -D -Zr',
    ),
    ('cdm-nvme', 'SEQ1M Q8T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=read --bs=1048576 --iodepth=8 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o8 -w0 -s1M -Su -L -D -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o8 -w0 -s1M -Sd -L -D',
    ),
    ('cdm-nvme', 'SEQ128K Q32T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=read --bs=131072 --iodepth=32 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b128K -d5 -W0 -C0 -t1 -o32 -w0 -s128K -Su -L -D -c1G -Rxml',
        '-b128K -d5 -W0 -t1 -o32 -w0 -s128K -Sd -L -D',
    ),
    ('cdm-nvme', 'RND4K Q32T16 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=4096 --iodepth=32 --numjobs=16 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t16 -o32 -w0 -r4K -Su -L -D -c1G -Rxml',
        '-b4K -d5 -W0 -t16 -o32 -w0 -r4K -Sd -L -D',
    ),
    ('cdm-nvme', 'RND4K Q1T1 Read'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=4096 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o1 -w0 -r4K -Su -L -D -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o1 -w0 -r4K -Sd -L -D',
    ),
    ('cdm-nvme', 'SEQ1M Q8T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=write --bs=1048576 --iodepth=8 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d5 -W0 -C0 -t1 -o8 -w100 -s1M -Su -L -D -Z1M -c1G -Rxml',
        '-b1M -d5 -W0 -t1 -o8 -w100 -s1M -Sd -L -D -Zr',
    ),
    ('cdm-nvme', 'SEQ128K Q32T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=write --bs=131072 --iodepth=32 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b128K -d5 -W0 -C0 -t1 -o32 -w100 -s128K -Su -L -D -Z1M -c1G -Rxml',
        '-b128K -d5 -W0 -t1 -o32 -w100 -s128K -Sd -L -D -Zr',
    ),
    ('cdm-nvme', 'RND4K Q32T16 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=4096 --iodepth=32 --numjobs=16 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t16 -o32 -w100 -r4K -Su -L -D -Z1M -c1G -Rxml',
        '-b4K -d5 -W0 -t16 -o32 -w100 -r4K -Sd -L -D -Zr',
    ),
    ('cdm-nvme', 'RND4K Q1T1 Write'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=4096 --iodepth=1 --numjobs=1 --group_reporting --size=1073741824 --time_based --runtime=5 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d5 -W0 -C0 -t1 -o1 -w100 -r4K -Su -L -D -Z1M -c1G -Rxml',
        '-b4K -d5 -W0 -t1 -o1 -w100 -r4K -Sd -L -D -Zr',
    ),
    # Steady state: fio runs for every round the step may take (labtui stops it when SNIA's rule
    # holds); DiskSpd runs once per round of -d60.
    ('snia-lite', 'RND4K Q32 70/30 steady'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randrw --rwmixread=70 --bs=4096 --iodepth=8 --numjobs=4 --group_reporting --size=17179869184 --time_based --runtime=1500 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d60 -W0 -C0 -t4 -o8 -w30 -r4K -Su -L -D -Z1M -c16G -Rxml',
        '-b4K -d60 -W0 -t4 -o8 -w30 -r4K -Sd -L -D -Zr',
    ),
    ('snia-lite', 'RND4K Q32 write steady'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randwrite --bs=4096 --iodepth=8 --numjobs=4 --group_reporting --size=17179869184 --time_based --runtime=1500 --norandommap --randrepeat=0 --refill_buffers --buffer_compress_percentage=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d60 -W0 -C0 -t4 -o8 -w100 -r4K -Su -L -D -Z1M -c16G -Rxml',
        '-b4K -d60 -W0 -t4 -o8 -w100 -r4K -Sd -L -D -Zr',
    ),
    # verify-after-swap: fio's own verify=crc32c; DiskSpd refuses a verified step (its lines are what it would run).
    ('verify-after-swap', 'Write the pattern'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=write --bs=1048576 --iodepth=4 --numjobs=1 --group_reporting --size=17179869184 --time_based --runtime=60 --verify=crc32c --verify_interval=4096 --verify_state_save=0 --do_verify=0 --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d60 -W0 -C0 -t1 -o4 -w100 -s1M -Su -L -D -Z1M -c16G -Rxml',
        '-b1M -d60 -W0 -t1 -o4 -w100 -s1M -Sd -L -D -Zr',
    ),
    ('verify-after-swap', 'Read back in order'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=read --bs=1048576 --iodepth=4 --numjobs=1 --group_reporting --size=17179869184 --time_based --runtime=60 --verify=crc32c --verify_interval=4096 --verify_state_save=0 --continue_on_error=verify --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b1M -d60 -W0 -C0 -t1 -o4 -w0 -s1M -Su -L -D -c16G -Rxml',
        '-b1M -d60 -W0 -t1 -o4 -w0 -s1M -Sd -L -D',
    ),
    ('verify-after-swap', 'Read back at random'): (
        '--name=labtui --filename=/lab/labtui-test.dat --ioengine=libaio --direct=1 --rw=randread --bs=4096 --iodepth=32 --numjobs=1 --group_reporting --size=17179869184 --time_based --runtime=30 --norandommap --randrepeat=0 --verify=crc32c --verify_interval=4096 --verify_state_save=0 --continue_on_error=verify --lat_percentiles=1 --eta=never --status-interval=1 --output-format=json+',
        '-b4K -d30 -W0 -C0 -t1 -o32 -w0 -r4K -Su -L -D -c16G -Rxml',
        '-b4K -d30 -W0 -t1 -o32 -w0 -r4K -Sd -L -D',
    ),
}

# I/O steps: command steps (zpaq-extract) have no fio or DiskSpd form.
STEPS = [(p, s) for p in builtin_profiles() for s in p.steps if s.is_io]


def test_every_builtin_step_is_pinned():
    assert set(PINNED) == {(p.name, s.name) for p, s in STEPS}


@pytest.mark.parametrize("profile,step", STEPS, ids=[f"{p.name}/{s.name}" for p, s in STEPS])
def test_command_lines(profile, step):
    fio, windows, linux = PINNED[(profile.name, step.name)]
    args = fio_arguments(step, "/lab/labtui-test.dat", profile.file_size, linux=True)
    assert shlex.join(args[1:]) == fio and args[0] == "fio"
    win = diskspd_arguments(step, "D:\\lab\\labtui-test.dat", profile.file_size, variant="windows", create_file=True)
    assert " ".join(win) == windows + " D:\\lab\\labtui-test.dat"
    port = diskspd_arguments(step, "/lab/labtui-test.dat", profile.file_size, variant="linux", create_file=False)
    assert " ".join(port) == linux + " /lab/labtui-test.dat"
    # DiskSpd rules the product card insists on
    assert "-r" not in win and "-r" not in port  # never a bare -r
    # -Sh (no cache, write-through) only where the profile asks for write-through: the post's
    # script does (-h), CrystalDiskMark does not (-S, here -Su / the port's -Sd)
    assert ("-Sh" in win) == ("-Sh" in port) == (step.cache == "off" and step.write_through)
    assert ("-Su" in win) == ("-Sd" in port) == (step.cache == "off" and not step.write_through)
    assert not any(a.startswith(("-C", "-R")) for a in port)  # the Linux port rejects both


def test_engines_show_the_same_lines(tmp_path):
    profile = builtin_profiles()[0]
    step = profile.steps[0]
    fio = FioEngine().command_line(step, "/lab/labtui-test.dat", profile.file_size)
    assert fio == "fio " + PINNED[(profile.name, step.name)][0]
    engine = DiskSpdEngine()
    missing = engine.command_line(step, tmp_path / "new.dat", profile.file_size)
    prepared = tmp_path / "prepared.dat"
    prepared.write_bytes(b"")
    existing = engine.command_line(step, prepared, profile.file_size)
    assert " -c1G " in missing and " -c" not in existing  # -c only when DiskSpd creates the file


def test_sequential_threads_get_their_own_regions():
    step = Step(name="seq", block_size=1024 * 1024, pattern="sequential", threads=4, outstanding=2, write_percent=30)
    args = fio_arguments(step, "/f", 1024**3, linux=True)
    assert "--size=268435456" in args and "--offset_increment=268435456" in args and "--rwmixread=70" in args
    assert "--rw=rw" in args
    win = diskspd_arguments(step, "f", 1024**3, variant="windows", create_file=False)
    assert "-s1M" in win and "-T256M" in win


def test_page_cache_on_uses_one_psync_job_per_outstanding_io():
    step = Step(name="cached", block_size=4096, cache="on", threads=2, outstanding=4, latency=False)
    args = fio_arguments(step, "/f", 1024**3, linux=True)
    assert {"--ioengine=psync", "--direct=0", "--numjobs=8", "--iodepth=1", "--output-format=json"} <= set(args)
    assert "--lat_percentiles=1" not in args
    assert "-Sh" not in diskspd_arguments(step, "f", 1024**3, variant="windows", create_file=False)


def test_fractional_times_and_colons():
    step = Step(name="short", duration=1.5, warmup=0.25)
    args = fio_arguments(step, "/mnt/a:b/f", 1024**2, linux=True, interval=0.5)
    assert "--runtime=1500ms" in args and "--ramp_time=250ms" in args and "--status-interval=500ms" in args
    assert "--filename=/mnt/a\\:b/f" in args
    assert "-d2" in diskspd_arguments(step, "f", 1024**2, variant="linux", create_file=False)
