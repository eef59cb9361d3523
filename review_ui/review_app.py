"""Mounts the review page on the app: its API, its pages, static files, and the login redirect."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException


def add_review(app: FastAPI) -> None:
    from urllib.parse import quote

    from . import accounts_pages, desk_pages, field_pages, live_pages, pages, setup_pages
    from .api import desk as desk_api
    from .api import footage, live, live_view, review
    from .api import setup as setup_api
    from .auth import LoginRequired

    app.include_router(review.router)
    app.include_router(setup_api.router)
    app.include_router(desk_api.router)
    app.include_router(footage.router)
    app.include_router(live.router)
    app.include_router(live_view.router)
    app.include_router(pages.router)
    app.include_router(setup_pages.router)
    app.include_router(desk_pages.router)
    app.include_router(field_pages.router)
    app.include_router(accounts_pages.router)
    app.include_router(live_pages.router)
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

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        """422 with where and what, never the input itself (a password) or the library's links and versions."""
        return JSONResponse({"detail": validation_errors(exc.errors())}, status_code=422)

    @app.middleware("http")
    async def _security_headers(request: Request, call_next):
        resp = await call_next(request)
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault("Content-Security-Policy", CSP)
        if not request.url.path.startswith("/static/") and request.url.path != "/favicon.ico" \
                and not (request.url.path.startswith("/api/v1/live/boards/")
                         and resp.headers.get("cache-control") == live_view.PUBLIC_CACHE):
            # Pages, frames, clips and API answers hold personal data: no copy in any cache (purged footage
            # must not linger in a browser's). The one exception: the state of a board the director made public.
            resp.headers["Cache-Control"] = "no-store"
        if request.url.scheme == "https":
            resp.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return resp


# Everything from this server, nothing inline, no frames, forms only back to it.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def validation_errors(errors) -> list[dict]:
    return [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "invalid")} for e in errors]
