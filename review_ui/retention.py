"""Retention: decide, per segment, whether the event's policy deletes it now, and purge.

Policies (per event, see models.POLICIES):

- `match_end`: delete once every match the segment belongs to has ended. Footage of a match whose
  transcript is not approved is deleted only if the event also says `purge_unapproved` (the
  "delete as soon as the game is over" events); otherwise it waits for approval.
- `after_approval` with `retention_days` N: delete N days after the last of the segment's matches
  had its transcript approved.
- `keep`: never delete automatically.
- Legal hold (on the event, or on one match) overrides every policy until it is released.

Footage that belongs to no match (warm-up before the first pairing, two recordings claiming one time) is
personal data that serves nothing: unless the event keeps footage, it is deleted `UNLINKED_DAYS` after
it ends, or the `after_approval` event's `retention_days` if longer (a match entered late still finds it
meanwhile).
Every deletion writes a PurgeLog row (what, when, why, which policy) after checking the store
no longer holds the object; `dry_run` reports the same decisions and deletes nothing. A store that cannot
be reached (or is not the server's: an unmounted share) purges nothing and logs nothing; one that fails
mid-run ends the run, its segment's row saying the delete failed, the segment kept in the database.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import POLICY_AFTER_APPROVAL, POLICY_MATCH_END, Event, Match, PurgeLog, Segment
from .services import utcnow
from .storage import FootageStore, StoreError

log = logging.getLogger("bgscribe.retention")

UNLINKED_DAYS = 7.0


@dataclass
class Decision:
    delete: bool
    policy: str
    reason: str


def decide(seg: Segment, event: Event | None, matches: list[Match], now: datetime) -> Decision:
    if event is None:
        return Decision(False, "none", "segment belongs to no event")
    policy = event.retention_policy
    if event.legal_hold:
        return Decision(False, "legal_hold", f"event under legal hold: {event.legal_hold_reason}".rstrip(": "))
    held = [m.id for m in matches if m.legal_hold]
    if held:
        return Decision(False, "legal_hold", f"match {held} under legal hold")
    if not matches:
        if policy not in (POLICY_MATCH_END, POLICY_AFTER_APPROVAL):
            return Decision(False, policy, "not part of any match; the event keeps footage")
        kept = event.retention_days if policy == POLICY_AFTER_APPROVAL else None  # (match_end: no days)
        days = max(UNLINKED_DAYS, kept or 0)
        due = seg.end + timedelta(days=days)
        if now < due:
            return Decision(False, policy, f"not part of any match; kept until {due:%Y-%m-%d %H:%M:%S}Z "
                                           f"({days:g} days after it ends)")
        return Decision(True, policy, f"not part of any match, {days:g} days after it ended")
    ids = ", ".join(str(m.id) for m in matches)
    unapproved = [m for m in matches if m.approved_at is None]
    if policy == POLICY_MATCH_END:
        running = [m for m in matches if m.ended_at is None or m.ended_at > now]
        if running:
            return Decision(False, policy, f"match {running[0].id} has not ended")
        if unapproved and not event.purge_unapproved:
            return Decision(False, policy, f"match {unapproved[0].id} ended but its transcript is not approved "
                                           "(the event does not purge unapproved footage)")
        last_end = max(m.ended_at for m in matches)
        if unapproved:
            return Decision(True, policy, f"match {ids} ended {last_end:%Y-%m-%d %H:%M:%S}Z; the event purges "
                                          "footage at match end, approved or not")
        return Decision(True, policy, f"match {ids} ended {last_end:%Y-%m-%d %H:%M:%S}Z and was approved")
    if policy == POLICY_AFTER_APPROVAL:
        if unapproved:
            return Decision(False, policy, f"transcript of match {unapproved[0].id} not approved")
        approved = max(m.approved_at for m in matches)
        due = approved + timedelta(days=event.retention_days or 0)
        if now < due:
            return Decision(False, policy, f"kept until {due:%Y-%m-%d %H:%M:%S}Z "
                                           f"({event.retention_days:g} days after approval)")
        return Decision(True, policy, f"transcript of match {ids} approved {approved:%Y-%m-%d %H:%M:%S}Z, "
                                      f"{event.retention_days:g} days ago or more")
    return Decision(False, policy, "event keeps footage")


@dataclass
class PurgeItem:
    segment: str
    board: int
    storage_key: str
    bytes: int
    policy: str
    reason: str
    deleted: bool


@dataclass
class PurgeReport:
    dry_run: bool
    checked: int = 0
    items: list[PurgeItem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def deleted(self) -> int:
        return sum(i.deleted for i in self.items)

    def as_dict(self) -> dict:
        return {"dry_run": self.dry_run, "checked": self.checked, "deleted": self.deleted,
                "would_delete" if self.dry_run else "purged": [i.__dict__ for i in self.items],
                "errors": self.errors}


def purge(session: Session, store: FootageStore, *, now: datetime | None = None, dry_run: bool = False,
          trigger: str = "bgscribe purge", frame_cache: Path | None = None) -> PurgeReport:
    """Apply every event's policy. `frame_cache`: the review page's cache of decoded frames
    (footage_frames.cache_dir), whose frames of a purged segment are deleted with it."""
    from .footage_frames import drop_cached_frames

    now = now or utcnow()
    report = PurgeReport(dry_run=dry_run)
    if not dry_run:
        try:
            store.check()
        except StoreError as e:  # a store that is down or not the server's: decide nothing, log nothing
            report.errors.append(str(e))
            log.error("retention: nothing purged: %s", e)
            return report
    segs = session.scalars(select(Segment).where(Segment.deleted_at.is_(None)).order_by(Segment.id)).all()
    for seg in segs:
        report.checked += 1
        d = decide(seg, seg.event, list(seg.matches), now)
        if not d.delete:
            continue
        item = PurgeItem(seg.segment_id, seg.board.number, seg.storage_key, seg.bytes, d.policy, d.reason, False)
        report.items.append(item)
        if dry_run:
            log.info("would purge %s (board %d): %s [%s]", seg.segment_id, seg.board.number, d.reason, d.policy)
            continue
        # The log row is written first (the intent), then the object is deleted and the row marked
        # verified once the store no longer has it: a crash in between leaves a logged, unverified row.
        entry = PurgeLog(at=now, segment_row_id=seg.id, board=seg.board.number, segment_id=seg.segment_id,
                         storage_key=seg.storage_key, sha256=seg.sha256, bytes=seg.bytes, footage_start=seg.start,
                         footage_end=seg.end, event_id=seg.event_id,
                         match_ids=",".join(str(m.id) for m in seg.matches), policy=d.policy, reason=d.reason,
                         verified_absent=False, trigger=trigger)
        session.add(entry)
        session.commit()
        try:
            store.delete(seg.storage_key)
            gone = not store.exists(seg.storage_key)
        except Exception as e:  # noqa: BLE001 - report, and go on with the next segment unless the store is down
            entry.reason += f" (delete failed: {e})"
            session.commit()
            report.errors.append(f"{seg.segment_id}: {e}")
            log.error("cannot delete %s: %s", seg.storage_key, e)
            if isinstance(e, StoreError):
                break  # the store failed mid-run: each further try would wait out its timeout and fail too
            continue
        if not gone:
            entry.reason += " (still in the store after delete)"
            session.commit()
            report.errors.append(f"{seg.segment_id}: still in the store after delete")
            continue
        seg.deleted_at = now
        entry.verified_absent = True
        session.commit()
        drop_cached_frames(frame_cache, seg.id)
        item.deleted = True
        log.info("purged %s (board %d, %d bytes): %s [%s]", seg.segment_id, seg.board.number, seg.bytes,
                 d.reason, d.policy)
    return report
