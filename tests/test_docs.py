"""The documents a fresh clone carries: every relative link in them points at a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "DESIGN.md", "hardware/README.md"]


@pytest.mark.parametrize("doc", DOCS)
def test_relative_links_stay_inside_the_repository(doc):
    path = ROOT / doc
    assert path.exists(), f"{doc} is missing"
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor
        where = (path.parent / target.split("#")[0]).resolve()
        assert where.is_relative_to(ROOT), f"{doc} links {target}, outside the repository"
        assert where.exists(), f"{doc} links {target}, which does not exist"
