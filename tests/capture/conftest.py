from __future__ import annotations

import pytest

from .helpers import FFMPEG, make_clip


@pytest.fixture(scope="session")
def clips(tmp_path_factory):
    """Replay clips, made once per session with ffmpeg."""
    if FFMPEG is None:
        pytest.skip("ffmpeg is not installed (apt-get install ffmpeg)")
    folder = tmp_path_factory.mktemp("clips")
    return lambda seconds, size="1280x720", fps=15: make_clip(folder / f"clip-{seconds}s-{size}-{fps}.mp4",
                                                             seconds, size, fps)
