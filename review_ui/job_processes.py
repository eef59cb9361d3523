"""The pipeline's camera-stage jobs (`bgscribe observe`, `bgscribe adapt`), each in a process of its own, forked from
a process that has imported the camera stage once.

A job runs in its own process so that it never holds the server's interpreter, and a crash or a hang ends only
it. Started afresh (`python -m bgscribe observe ...`), each spent about 1.2 CPU-s on starting Python, importing
NumPy, OpenCV, PyAV and onnxruntime and parsing its arguments, beside about 4 CPU-s observing a minute of 720p
footage: a quarter of every observe job. Here they are forked from multiprocessing's fork server, which imports
those once (`PRELOAD`); each job still loads its models and runs in a fresh process.

A job's process ends with the worker that started it, even when the worker is killed (SIGKILL): another worker
redoes the job, and an orphan would only burn the CPU that one needs. It runs at a lower priority (`NICE`): the
record can wait a little, the server's answers and, where they share its machine, the live boards cannot (24 live
boards on these two cores, `bench_live.py`: feed latency p95 7.1 -> 3.0 s, the finished transcript 102 -> 114 s).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

# "__main__": the program's own main module (`bgscribe`'s script) is imported once there too, not in every job
PRELOAD = ["__main__", "vision.cli", "vision.observe", "vision.readers", "vision.fieldfind", "vision.adapt",
           "vision.still"]

WATCH_S = 0.5  # how often a job looks whether its worker is still there
NICE = 10  # a job yields the CPU to the server and, on one box, the live boards: it is the record, not the view

_context = None


def _fork_server():
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
    return _context


def _parser() -> argparse.ArgumentParser:
    from vision.cli import add_adapt_arguments, add_observe_arguments, run_adapt, run_observe

    p = argparse.ArgumentParser(prog="bgscribe")
    sub = p.add_subparsers(dest="command", required=True)
    add_observe_arguments(c := sub.add_parser("observe"))
    c.set_defaults(func=run_observe)
    add_adapt_arguments(c := sub.add_parser("adapt"))
    c.set_defaults(func=run_adapt)
    return p


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # dead but not yet waited for
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _die_with(worker: int) -> None:
    """End this process when ``worker`` ends. (Its parent is the fork server, which outlives the worker while any
    of its children lives: a parent-death signal would never come.)"""

    def watch() -> None:
        while _alive(worker):
            time.sleep(WATCH_S)
        os._exit(1)

    threading.Thread(target=watch, name="watch-worker", daemon=True).start()


def _job(argv: list[str], out: str, err: str, worker: int) -> None:
    """(in the job's process) `bgscribe ARGV`, its stdout and stderr to the files ``out`` and ``err``."""
    _die_with(worker)
    os.nice(NICE)
    for fd, path in ((1, out), (2, err)):
        f = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.dup2(f, fd)
        os.close(f)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (the process's own, to its end)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    try:
        args = _parser().parse_args(argv)
        code = args.func(args) or 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, int | None):
            print(e.code, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


class JobTimeout(RuntimeError):
    pass


class JobProcess:
    """One job's process: `run` waits for it; `terminate` (from another thread) ends it."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.process = None

    def run(self, timeout: float) -> tuple[int, str, str]:
        """(exit status, stdout, stderr) of `bgscribe ARGV`; JobTimeout where it ran over ``timeout`` seconds
        (it is killed)."""
        with tempfile.TemporaryDirectory(prefix="bgscribe-job-") as tmp:
            out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
            out.touch()
            err.touch()
            process = _fork_server().Process(target=_job, args=(self.argv, str(out), str(err), os.getpid()),
                                             name=f"bgscribe {self.argv[0]}", daemon=True)  # (ended at exit)
            process.start()
            self.process = process
            process.join(timeout)
            if process.exitcode is None:
                process.kill()
                process.join()
                raise JobTimeout(f"over {timeout:.0f} s")
            return (process.exitcode, out.read_text(encoding="utf-8", errors="replace"),
                    err.read_text(encoding="utf-8", errors="replace"))

    def running(self) -> bool:
        return self.process is not None and self.process.exitcode is None

    def terminate(self) -> None:
        if self.running():
            self.process.terminate()
