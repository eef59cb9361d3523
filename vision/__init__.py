"""Camera geometry, detectors and frame observations (filled by the vision issue)."""
