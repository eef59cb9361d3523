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


def test_validate_garbled_file_reports_every_line_that_does_not_read(tmp_path):
    p = tmp_path / "garbled.mat"
    p.write_text(" 7 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/q\n  2) 42: 8/4 6/4   31: 8/5 6/5\n"
                 "  3) zz garbage\n  4) 64: 24/18 13/9!   Doubles\n")
    r = bgscribe("validate", p)
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    for ln in (5, 7, 8):
        assert f"{p}:{ln}: format:" in r.stdout, r.stdout
    assert f"{p}:6:" not in r.stdout and r.stdout.strip().endswith("3 errors")
    errs = json.loads(bgscribe("validate", "--json", p).stdout)["files"][0]["errors"]
    assert [(e["kind"], e["line"]) for e in errs] == [("format", 5), ("format", 7), ("format", 8)]


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
    assert "13/6" in out.read_text()
    # written, but said loudly: every problem, and exit status 1
    assert r.returncode == 1 and f"warning: {out} was written with --force but is NOT a valid match (2 problems)" \
        in r.stderr, r.stderr
    assert "  dice: adrien75116 rolled 61: '13/6 8/7' moves 8 pips" in r.stderr and "[game 1, move 1]" in r.stderr
    assert "  illegal_play: " in r.stderr and "[game 1, move 14]" in r.stderr  # every problem, not the first


def test_convert_output_follows_the_umask(sample_paths, tmp_path):
    import os

    out = tmp_path / "m.mat"
    r = subprocess.run(["sh", "-c", f'umask 022 && "{sys.executable}" -m bgscribe convert "{sample_paths[2]}" '
                        f'--out "{out}"'], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert oct(os.stat(out).st_mode & 0o777) == oct(0o644)  # as any other file written under umask 022
    os.chmod(out, 0o640)  # a mode someone chose is kept on rewrite
    assert bgscribe("convert", sample_paths[2], "--out", out).returncode == 0
    assert oct(os.stat(out).st_mode & 0o777) == oct(0o640)


def test_convert_unwritable_destination(sample_paths, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = bgscribe("convert", sample_paths[0], "--out", blocker / "sub" / "m.mat")
    assert r.returncode == 1 and "cannot write" in r.stderr and "Traceback" not in r.stderr


def test_an_empty_or_non_video_file_is_named_as_such(tmp_path):
    empty, text = tmp_path / "empty.mp4", tmp_path / "notes.mp4"
    empty.write_bytes(b"")
    text.write_text("not a video at all\n")
    for cmd in (("observe", empty, "--out", tmp_path / "o.jsonl"), ("transcribe", empty, "--out", tmp_path / "m.mat"),
                ("check-camera", empty)):
        r = bgscribe(*cmd)
        assert r.returncode != 0 and f"cannot open {empty}: empty file (0 bytes)" in r.stderr, r.stderr
        assert "Errno" not in r.stderr and "Traceback" not in r.stderr
    r = bgscribe("observe", text, "--out", tmp_path / "o.jsonl")
    assert r.returncode == 1 and f"cannot open {text}: not a video (FFmpeg finds no video format in its 19 bytes)" \
        in r.stderr and "Errno" not in r.stderr, r.stderr


def test_observe_refuses_fewer_than_one_thread(tmp_path):
    r = bgscribe("observe", tmp_path / "any.mp4", "--out", tmp_path / "o.jsonl", "--threads", "0")
    assert r.returncode != 0 and "--threads must be at least 1" in r.stderr and "Traceback" not in r.stderr
