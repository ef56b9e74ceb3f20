"""The blocking helpers of command steps run in threads: their errors must reach the step."""

import asyncio

import pytest

from labtui.engine.command.engine import _in_thread


async def test_an_error_in_the_thread_reaches_the_awaiting_step():
    def hung_disk():
        raise OSError("the disk did not answer")

    with pytest.raises(OSError, match="did not answer"):
        await asyncio.wait_for(_in_thread(hung_disk), timeout=10)


async def test_a_value_from_the_thread_is_returned():
    assert await asyncio.wait_for(_in_thread(lambda: 42), timeout=10) == 42
