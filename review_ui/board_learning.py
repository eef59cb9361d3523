"""Every approved transcript teaches the camera stage its board.

An approved transcript says where every checker stood between one action and the next; the footage shows
the board then, under the venue's light. Its quiet frames are labelled pictures of this very board: the
pipeline's `learn` job gathers up to `FRAMES` of them, spread over the match, with the rows each should
read (`labelled_frames`), and a child process (`bgscribe adapt --frames`: it decodes footage and runs the
readers, like `observe`) refits the board's points head on them, keeping it only if it reads the frames
held out at least as well as what the board had learnt before.
"""

from __future__ import annotations

from pathlib import Path

from transcriber.observation import FrameObservation
from transcriber.physical import Seating, slot_counts
from transcriber.replay import replay_match
from vision.still import rows_of_slots

from .board_field import board_field
from .footage_frames import locate
from .models import Match
from .transcripts import record_from_doc

FRAMES = 32  # labelled frames a match gives at most


class NothingToLearn(ValueError):
    """Why a match cannot teach its board (no seating, no confirmed field, no quiet frame)."""


def labelled_moments(doc: dict) -> list[tuple[float, float, list[str], list[str]]]:
    """(from, to, top, bottom): the spans of match time between two actions of an approved transcript, each
    with the rows the board showed then (the position before the later action, placed by the transcript's
    seating)."""
    seating = doc.get("seating")
    if not isinstance(seating, dict):
        raise NothingToLearn("the transcript does not say who sat where (its seating)")
    seat = Seating(**{k: bool(seating[k]) for k in ("p0_bottom", "home_right", "p0_light") if k in seating})
    replay = replay_match(record_from_doc(doc))
    out = []
    for g, gr in zip(doc["games"], replay.games):
        prev = None
        for a, pos in zip(g["actions"], gr.positions):
            t = a.get("time")
            if t is None:
                continue
            if prev is not None and t > prev:
                out.append((prev, float(t), *rows_of_slots(slot_counts(pos, seat))))
            prev = float(t)
    return out


def labelled_frames(match: Match, doc: dict, observations: list[FrameObservation], segments, video_of,
                    size_of) -> list[dict]:
    """Up to `FRAMES` frames for `bgscribe adapt --frames`: for spans spread over the match, the quiet frame
    nearest each span's middle, its segment's video (``video_of(segment) -> Path``), offset and the board's
    confirmed field in that video's pixels (``size_of(path) -> (w, h) | None``)."""
    field = board_field(match.board)
    if field is None:
        raise NothingToLearn("the board's field has not been confirmed (its field page)")
    moments = labelled_moments(doc)
    quiet = sorted((o.t for o in observations if o.quiet), key=float)
    picked = []
    for t0, t1, top, bottom in moments:
        inside = [t for t in quiet if t0 < t < t1]
        if inside:
            mid = (t0 + t1) / 2
            picked.append((min(inside, key=lambda t: abs(t - mid)), top, bottom))
    if len(picked) > FRAMES:  # spread over the match
        step = len(picked) / FRAMES
        picked = [picked[int(k * step)] for k in range(FRAMES)]
    out = []
    for t, top, bottom in picked:
        at = locate(segments, t)
        if not at.available:
            continue
        video: Path = video_of(at.segment)
        size = size_of(video)
        if size is None:
            continue
        out.append({"video": str(video), "offset": round(at.offset, 3), "field": field.pixels(*size),
                    "top": top, "bottom": bottom})
    if len(out) < 2:
        raise NothingToLearn(f"the footage has {len(out)} quiet frames between the transcript's actions")
    return out


def learnt_lately(s, board_id: int, limit: int = 3) -> list[dict]:
    """What the board's latest `learn` jobs did, newest first, in words for its field page."""
    import json

    from sqlalchemy import select

    from .pipeline_models import DONE, FAILED, LEARN, PipelineJob

    jobs = s.scalars(select(PipelineJob).join(Match, PipelineJob.match_id == Match.id)
                     .where(PipelineJob.kind == LEARN, Match.board_id == board_id)
                     .order_by(PipelineJob.id.desc()).limit(limit))
    out = []
    for j in jobs:
        if j.state == DONE:
            r = json.loads(j.result_json or "{}")
            text = (f"learnt from {r.get('frames')} labelled frames: {r.get('right_after')} of {r.get('points')} "
                    f"held-out points read right (was {r.get('right_before')}): "
                    + ("kept, its next footage is read with it" if r.get("kept") else "not kept (no better)"))
        elif j.state == FAILED:
            text = (j.error.strip().splitlines() or ["failed"])[-1]
        else:
            text = "learning from it (after the approval)"
        out.append({"match": j.match_id, "text": text})
    return out

