"""The observation types live with their consumer, the transcriber (vision -> transcriber contract)."""

from transcriber.observation import (  # noqa: F401  (re-exported for vision code)
    CUBE_PLACES,
    CUBE_VALUES,
    EPS,
    MAX_COUNT,
    CubeReading,
    DieReading,
    FrameObservation,
    SlotReading,
)
