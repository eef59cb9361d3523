"""The command line as staff use it: real subprocesses, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

from transcriber.mat import read_mat
from transcriber.replay import replay_match


def bgscribe(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "bgscribe", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_help_lists_commands():
    r = bgscribe("--help")
    assert r.returncode == 0
    for cmd in ("validate", "convert", "demo"):
        assert cmd in r.stdout


def test_validate_real_matches(sample_paths):
    r = bgscribe("validate", *sample_paths)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": OK (") == 3
    r = bgscribe("validate", "--json", *sample_paths)
    data = json.loads(r.stdout)
    assert [f["errors"] for f in data["files"]] == [[], [], []]
    assert sum(f["games"] for f in data["files"]) == 36
    assert sum(f["plays"] for f in data["files"]) == 1447


def test_validate_reports_each_problem_with_its_place(sample_paths, tmp_path):
    text = sample_paths[0].read_text()
    bad = text.replace("  3) 62: bar/23 13/7", "  3) 62: bar/23 13/8", 1)  # 5 pips with 6-2
    bad = bad.replace(" adrien75116 : 2                        raphael_gin : 4",
                      " adrien75116 : 2                        raphael_gin : 5", 1)
    p = tmp_path / "bad.txt"
    p.write_text(bad)
    r = bgscribe("validate", p)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"{p}:21: dice:" in r.stdout and "game 1, move 3, adrien75116" in r.stdout
    assert "score line says 2-5" in r.stdout
    # one typo costs one error: the replay continues from the legal play later moves agree with
    assert "later moves fit bar/23 13/7" in r.stdout and r.stdout.strip().endswith("2 errors")
    data = json.loads(bgscribe("validate", "--json", p).stdout)
    errs = data["files"][0]["errors"]
    assert {e["kind"] for e in errs} >= {"dice", "score"}
    assert all({"kind", "message", "game"} <= set(e) for e in errs)


def test_validate_malformed_file_no_traceback(tmp_path):
    p = tmp_path / "broken.mat"
    p.write_text(" 7 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/q\n")
    r = bgscribe("validate", p, tmp_path / "missing.mat")
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    assert f"{p}:5: format:" in r.stdout and "missing.mat: format: cannot read the file" in r.stdout


def test_convert_writes_canonical_mat(sample_paths, tmp_path):
    out = tmp_path / "m.mat"
    r = bgscribe("convert", sample_paths[2], "--out", out)
    assert r.returncode == 0, r.stderr
    assert replay_match(read_mat(out)).problems == []
    first = out.read_bytes()
    r = bgscribe("convert", out, "--out", tmp_path / "m2.mat")
    assert (tmp_path / "m2.mat").read_bytes() == first


def test_convert_refuses_invalid_and_loses_nothing(sample_paths, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(sample_paths[0].read_text().replace("13/7 8/7", "13/6 8/7", 1))
    out = tmp_path / "out.mat"
    out.write_text("previous content")
    r = bgscribe("convert", bad, "--out", out)
    assert r.returncode == 1 and "refusing to write" in r.stderr and "Traceback" not in r.stderr
    assert out.read_text() == "previous content"
    r = bgscribe("convert", bad, "--out", out, "--force")
    assert r.returncode == 0 and "13/6" in out.read_text()


def test_convert_unwritable_destination(sample_paths, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = bgscribe("convert", sample_paths[0], "--out", blocker / "sub" / "m.mat")
    assert r.returncode == 1 and "cannot write" in r.stderr and "Traceback" not in r.stderr
