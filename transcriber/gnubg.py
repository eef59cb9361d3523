"""Drive real GNU Backgammon to check that our files import as we mean them."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .mat import read_mat
from .record import MatchRecord

CANDIDATES = ("gnubg", "/usr/games/gnubg")


def find_gnubg() -> str | None:
    for c in CANDIDATES:
        found = shutil.which(c)
        if found:
            return found
    return None


def gnubg_reimport(mat_path: str | Path, timeout: float = 120) -> MatchRecord:
    """Import ``mat_path`` into gnubg, export it again, and read gnubg's export back."""
    exe = find_gnubg()
    if exe is None:
        raise FileNotFoundError("GNU Backgammon is not installed (Debian: apt-get install gnubg)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.mat"  # gnubg's command line splits on spaces: use a plain path
        shutil.copyfile(mat_path, src)
        out = Path(tmp) / "out.mat"
        script = f"import mat {src}\nexport match mat {out}\n"
        proc = subprocess.run([exe, "-t", "-q", "-r"], input=script, capture_output=True, text=True,
                              timeout=timeout)
        if not out.exists():
            raise RuntimeError(f"gnubg did not import {mat_path}: {proc.stdout[-500:]} {proc.stderr[-500:]}")
        return read_mat(out)
