"""Capture agents: camera sources, segment recorder, spool and upload (filled by the capture issue)."""
