from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "bgscribe" / "samples").glob("*.txt"))


@pytest.fixture(scope="session")
def sample_paths() -> list[Path]:
    assert len(SAMPLES) == 3, "the three real matches ship in bgscribe/samples"
    return SAMPLES
