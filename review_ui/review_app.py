"""Mounts the review page on the app: its API, its pages, static files, and the login redirect."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles


def add_review(app: FastAPI) -> None:
    from urllib.parse import quote

    from . import pages, setup_pages
    from .api import footage, live, review
    from .api import setup as setup_api
    from .auth import LoginRequired

    app.include_router(review.router)
    app.include_router(setup_api.router)
    app.include_router(footage.router)
    app.include_router(live.router)
    app.include_router(pages.router)
    app.include_router(setup_pages.router)
    app.mount("/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="static")

    @app.exception_handler(LoginRequired)
    async def _to_login(_request: Request, exc: LoginRequired):
        return RedirectResponse(f"/login?next={quote(exc.next_url)}", status_code=303)

    @app.middleware("http")
    async def _security_headers(request: Request, call_next):
        resp = await call_next(request)
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp
