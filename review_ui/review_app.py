"""Mounts the review page on the app: its API, its pages, static files, and the login redirect."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException


def add_review(app: FastAPI) -> None:
    from urllib.parse import quote

    from . import field_pages, pages, setup_pages
    from .api import footage, live, review
    from .api import setup as setup_api
    from .auth import LoginRequired

    app.include_router(review.router)
    app.include_router(setup_api.router)
    app.include_router(footage.router)
    app.include_router(live.router)
    app.include_router(pages.router)
    app.include_router(setup_pages.router)
    app.include_router(field_pages.router)
    app.mount("/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="static")

    @app.exception_handler(LoginRequired)
    async def _to_login(_request: Request, exc: LoginRequired):
        return RedirectResponse(f"/login?next={quote(exc.next_url)}", status_code=303)

    @app.exception_handler(StarletteHTTPException)
    async def _error_page(request: Request, exc: StarletteHTTPException):
        """A browser asking for a page gets a page (the API and the rest keep their JSON)."""
        if request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", ""):
            return await http_exception_handler(request, exc)
        title = {404: "Not found", 403: "Not allowed", 405: "Not allowed"}.get(exc.status_code, "Something went wrong")
        message = exc.detail if isinstance(exc.detail, str) and exc.detail != "Not Found" else \
            f"There is no page at {request.url.path}."
        return pages.templates.TemplateResponse(request, "error.html", {"title": title, "message": message,
                                                                         "login": None},
                                                status_code=exc.status_code, headers=exc.headers)

    @app.get("/favicon.ico", include_in_schema=False)
    def _favicon():
        return FileResponse(Path(__file__).parent / "static" / "favicon.svg", media_type="image/svg+xml",
                            headers={"Cache-Control": "max-age=86400"})

    @app.middleware("http")
    async def _security_headers(request: Request, call_next):
        resp = await call_next(request)
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp
