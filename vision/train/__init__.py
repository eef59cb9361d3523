"""Training recipes (need the [train] extra: torch). Never imported at run time."""
