"""Work off the UI thread: what a worker found reaches its screen as a message, a failure as one line.

Screens run their slow parts (reading the devices, the results, a run) as Textual `@work` methods
that post a typed message when they are done. When one raises instead, the screen's
`work_failed` says so in the one format of `failure_text`: labtui's own errors are a sentence
meant for the person, anything else is a bug and is named as one.
"""

from __future__ import annotations

from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

from labtui.errors import LabtuiError


def failure_text(error: BaseException) -> str:
    """Why the work failed, in one line."""
    if isinstance(error, LabtuiError):
        return str(error)
    return f"internal error: {type(error).__name__}: {error}"


def report_failure(node: Widget, what: str, error: BaseException) -> str:
    """Tell the person that `what` failed ("Could not read the disks") and why; the text, to show in place too."""
    text = f"{what}: {failure_text(error)}"
    node.notify(text, severity="error")
    return text


def post_found(node: MessagePump, message: Message) -> None:
    """From a worker: hand `node` what it found, unless a newer worker of its group has replaced this one."""
    if not get_current_worker().is_cancelled:
        node.post_message(message)


def worker_error(event: Worker.StateChanged) -> BaseException | None:
    """What a worker raised, as its state changes (None while it has not failed). A widget's workers
    report to the widget alone (the message does not bubble): a widget that works says its failures."""
    return event.worker.error if event.state == WorkerState.ERROR else None
