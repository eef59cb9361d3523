"""bgscribe: cameras over live backgammon boards, footage in, checked .mat files out."""

__version__ = "0.1.0"
