"""The virtual tournament board: renders boards and whole matches as overhead-camera footage with truth."""
