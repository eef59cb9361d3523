"""The BMAB submission bundle: the `.mat` of every approved (or submitted) match of an event or one of its
rounds, and a manifest."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Event, Match
from .review_models import STATUS_APPROVED, STATUS_SUBMITTED, Transcript
from .services import utcnow
from .transcripts import export_doc, mat_text, on_trust, record_from_doc


def bmab_bundle(s: Session, event: Event, rnd=None) -> tuple[bytes, dict]:
    """(zip bytes, manifest) for the event, or only the round `rnd` (a setup_models.Round). Only approved or
    submitted transcripts go in; the manifest lists the rest as left out."""
    manifest = {"event": event.name, "event_id": event.id, "created_at": utcnow().isoformat(timespec="seconds"),
                "round": rnd.number if rnd is not None else None, "matches": [], "left_out": []}
    q = select(Match).where(Match.event_id == event.id).order_by(Match.id)
    if rnd is not None:
        q = q.where(Match.round_id == rnd.id)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for m in s.scalars(q):
            t = s.scalar(select(Transcript).where(Transcript.match_id == m.id))
            if t is None or t.status not in (STATUS_APPROVED, STATUS_SUBMITTED):
                manifest["left_out"].append({"match": m.id, "board": m.board.number,
                                             "status": t.status if t else "no transcript"})
                continue
            doc = export_doc(json.loads(t.doc_json), event.name, m.board.number)
            data = mat_text(doc).encode("utf-8")
            name = f"board{m.board.number:03d}_match{m.id}.mat"
            z.writestr(name, data)
            manifest["matches"].append({
                "file": name, "match": m.id, "match_id": record_from_doc(doc).match_id, "board": m.board.number,
                "players": doc["players"], "length": doc["length"],
                "round": m.round.number if m.round else doc["meta"].get("Round", ""),
                "status": t.status, "approved_by": t.approved_by,
                "approved_at": t.approved_at.isoformat() if t.approved_at else None,
                "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                "taken_on_trust": on_trust(doc)})
        z.writestr("manifest.json", json.dumps(manifest, indent=1) + "\n")
    return buf.getvalue(), manifest
