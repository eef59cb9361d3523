from __future__ import annotations

import pytest

from transcriber.mat import read_mat

from ..conftest import SAMPLES
from .streams import render_clean


@pytest.fixture(scope="session")
def real_truth(tmp_path_factory):
    """The first two games of a real match, rendered clean and small: a dropped double, a gammon."""
    return render_clean(tmp_path_factory, read_mat(SAMPLES[0]), "real", seed=3, games=2)
