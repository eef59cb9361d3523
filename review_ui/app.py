"""The bgscribe server: `create_app(settings)` builds the FastAPI app (ingest, staff API, retention job)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from .config import Settings
from .db import Database
from .storage import make_store

log = logging.getLogger("bgscribe.server")


def run_purge(app: FastAPI, trigger: str):
    from .footage_frames import cache_dir
    from .retention import purge

    with app.state.db.session() as s:
        return purge(s, app.state.store, trigger=trigger,
                     frame_cache=cache_dir(app.state.settings.data_dir))


async def _purge_loop(app: FastAPI, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            r = await run_in_threadpool(run_purge, app, "periodic job")
            if r.items or r.errors:
                log.info("retention: %d of %d segments purged, %d errors", r.deleted, r.checked, len(r.errors))
        except Exception:  # keep the job alive; the next run retries
            log.exception("retention job failed")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        settings.staging_path.mkdir(parents=True, exist_ok=True)
        app.state.db = Database(settings.db_url)
        app.state.store = make_store(settings)
        app.state.pipeline = None
        if settings.pipeline:
            from .pipeline import Pipeline

            app.state.pipeline = Pipeline(app.state.db, app.state.store, settings.data_dir,
                                          settings.pipeline_poll_seconds)
            app.state.pipeline.start()
        task = None
        if settings.purge_interval_seconds > 0:
            task = asyncio.create_task(_purge_loop(app, settings.purge_interval_seconds))
        log.info("bgscribe server ready: database %s, footage in %s", settings.db_url, settings.footage_path)
        try:
            yield
        finally:
            if app.state.pipeline is not None:
                app.state.pipeline.stop()
            if task:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            app.state.db.dispose()

    from .api import fields, ingest, staff

    app = FastAPI(title="bgscribe", lifespan=lifespan)
    app.state.settings = settings
    app.include_router(ingest.router)
    app.include_router(staff.router)
    app.include_router(fields.router)

    @app.get("/api/v1/health")
    def health():
        return {"ok": True}

    from .review_app import add_review

    add_review(app)
    return app
