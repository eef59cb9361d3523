"""Every `--help` staff may type prints its page: each bgscribe command (and its sub-commands) and each benchmark.

A help string is a %-format (argparse expands %(default)s in it), so a bare % in one breaks that page alone, and
only when someone asks for help; these run each page in-process, which takes a second for all of them.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

import pytest

from bgscribe import cli

BENCH = sorted((Path(__file__).resolve().parents[1] / "bench").glob("bench_*.py"))


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command path under PARSER, its sub-commands' included."""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, (*path, name))


def _all_commands() -> list[tuple[str, ...]]:
    seen: list[argparse.ArgumentParser] = []
    real = argparse.ArgumentParser.parse_args

    def capture(self, *a, **k):  # the parser main() builds, caught before it parses
        seen.append(self)
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = capture
    try:
        with pytest.raises(SystemExit):
            cli.main(["--help"])
    finally:
        argparse.ArgumentParser.parse_args = real
    return list(_commands(seen[0]))


@pytest.mark.parametrize("path", _all_commands(), ids=lambda p: " ".join(p) or "bgscribe")
def test_each_command_prints_its_help(path, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([*path, "--help"])
    assert done.value.code == 0
    assert "usage: bgscribe" in capsys.readouterr().out


@pytest.mark.parametrize("script", BENCH, ids=lambda p: p.name)
def test_each_benchmark_prints_its_help(script, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(script), run_name="__main__")
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out
