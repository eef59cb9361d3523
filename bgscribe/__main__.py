import os
import sys

from .cli import main


def _die_with_parent() -> None:
    """A job's child process (review_ui/pipeline.py) ends when the worker that started it dies, even by SIGKILL:
    another worker redoes the job, and an orphan would only burn the CPU it needs."""
    parent = os.environ.pop("BGSCRIBE_PARENT_PID", "")
    if not parent.isdigit() or not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != int(parent):  # it died before the call above
        sys.exit(1)


_die_with_parent()
sys.exit(main())
