"""The bgscribe server: `create_app(settings)` builds the FastAPI app (ingest, staff API, retention job)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from .config import Settings
from .db import Database, shown_url
from .storage import StoreError, server_store

log = logging.getLogger("bgscribe.server")


def run_purge(app: FastAPI, trigger: str):
    from .api.ingest import drop_stale_staging
    from .footage_frames import cache_dir
    from .retention import purge

    settings = app.state.settings
    for p in drop_stale_staging(settings.staging_path, settings.staging_max_age_hours * 3600):
        log.info("deleted the unfinished upload %s (untouched for %g hours)", p.name, settings.staging_max_age_hours)
    with app.state.db.session() as s:
        return purge(s, app.state.store, trigger=trigger, frame_cache=cache_dir(settings.data_dir))


async def _purge_loop(app: FastAPI, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            r = await run_in_threadpool(run_purge, app, "periodic job")
            if r.items or r.errors:
                log.info("retention: %d of %d segments purged, %d errors", r.deleted, r.checked, len(r.errors))
        except Exception:  # keep the job alive; the next run retries
            log.exception("retention job failed")


def make_queue(settings: Settings):
    """The job queue to the workers, checked (QueueError when the broker does not answer); None: no broker set."""
    if not settings.broker_url:
        return None
    from .work_queue import WorkQueue

    queue = WorkQueue(settings.broker_url, settings.broker_heartbeat_seconds)
    queue.check()
    return queue


def create_app(settings: Settings | None = None) -> FastAPI:
    from .security import owner_only_dir, redact_access_log, resolve_admin_token

    settings = settings or Settings()
    settings.admin_token = resolve_admin_token(settings)  # refuses a placeholder; makes one when none is set
    redact_access_log()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        local = [settings.footage_path] if settings.storage == "local" else []
        for folder in (settings.data_dir, settings.staging_path, *local):
            owner_only_dir(folder)  # footage and the database are personal data
        try:
            app.state.store = server_store(settings)
        except StoreError as e:
            log.error("refusing to start: %s", e)
            raise
        app.state.db = Database(settings.db_url)
        from .live_analysis import LiveAnalyst
        from .live_feed import LiveHub

        app.state.live = LiveHub(app.state.db, LiveAnalyst.if_available(settings.live_analysis_ply))
        app.state.live_cameras = None
        if settings.live_camera_threads > 0:
            from .live_cameras import LiveCameras, live_setup

            def setup(board_id: int) -> dict:
                from .models import Board

                with app.state.db.session() as s:
                    return live_setup(settings.data_dir, s.get(Board, board_id))

            app.state.live_cameras = LiveCameras(app.state.live, setup, threads=settings.live_camera_threads)
        app.state.live.loop = asyncio.get_running_loop()
        app.state.pipeline = None
        if settings.pipeline:
            from .pipeline import Pipeline

            app.state.pipeline = Pipeline(app.state.db, app.state.store, settings.data_dir,
                                          settings.pipeline_poll_seconds, settings.pr_ply, make_queue(settings),
                                          jobs=settings.pipeline_jobs or os.cpu_count() or 1)
            app.state.pipeline.start()
        task = None
        if settings.purge_interval_seconds > 0:
            task = asyncio.create_task(_purge_loop(app, settings.purge_interval_seconds))
        log.info("bgscribe server ready: database %s, %s%s", shown_url(settings.db_url), app.state.store,
                 f", jobs sent to the workers through {app.state.pipeline.queue.shown_url}"
                 if app.state.pipeline is not None and app.state.pipeline.queue else "")
        try:
            yield
        finally:
            if app.state.pipeline is not None:
                app.state.pipeline.stop()
            if app.state.live_cameras is not None:
                app.state.live_cameras.close()
            if app.state.live.analyst is not None:
                app.state.live.analyst.close()
            if task:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            app.state.db.dispose()

    from .api import fields, ingest, staff

    # No docs UI (it loads its script from a CDN) and no open schema: the schema is served to a login only.
    app = FastAPI(title="bgscribe", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    from .throttle import LoginThrottle

    app.state.login_throttle = LoginThrottle()
    app.include_router(ingest.router)
    app.include_router(staff.router)
    app.include_router(fields.router)

    from starlette.requests import ClientDisconnect
    from starlette.responses import Response

    @app.exception_handler(ClientDisconnect)
    async def _client_gone(request, _exc):
        # the client hung up before its body was all sent (an agent's upload timing out on a loaded server): nothing
        # of that body is kept, and the agent sends it again. A line in the log, not a traceback
        log.info("%s %s: the client went away before its body was sent", request.method, request.url.path)
        return Response(status_code=400)

    @app.get("/api/v1/health")
    def health():
        return {"ok": True}

    from fastapi import Depends

    from .auth import api_login

    @app.get("/api/v1/openapi.json", include_in_schema=False)
    def openapi(login=Depends(api_login)):  # noqa: B008 - (annotations are strings here: no LoginDep)
        """The API's schema, for a logged-in person only (it maps every route)."""
        from fastapi.openapi.utils import get_openapi

        return get_openapi(title=app.title, version=app.version, routes=app.routes)

    from .limits import add_limits
    from .review_app import add_review

    add_limits(app)  # added first: the security headers' middleware (added by add_review) wraps its answers too
    add_review(app)
    return app
