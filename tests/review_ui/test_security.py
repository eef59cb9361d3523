"""Security at a venue (issue 21): each finding tried against the real server on 127.0.0.1 with real requests, as
an attacker on the venue's network would."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from review_ui.models import Heartbeat, Match, PurgeLog
from review_ui.review_models import AuditLog, User
from review_ui.security import InsecureSetting
from review_ui.services import create_event, new_token, register_board

from .conftest import STAFF, TOKEN, auth
from .live_server import LiveServer, free_port, raw_request
from .review_helpers import PASSWORD, REPORT, add_match, add_users, login, upload
from .test_ingest import BASE, make_segment

ROOT = Path(__file__).resolve().parents[2]


def _audit(srv) -> list[tuple[str, str, str]]:
    with srv.state.db.session() as s:
        return [(a.username, a.action, a.target) for a in s.query(AuditLog).order_by(AuditLog.id)]


# ----------------------------------------------------------------------------- secrets


@pytest.mark.parametrize("token", ["change-me", "CHANGEME", "staff-secret", "short-token"])
def test_a_placeholder_or_short_staff_token_is_refused(tmp_path, token):
    from review_ui.app import create_app
    from review_ui.config import Settings

    with pytest.raises(InsecureSetting):
        create_app(Settings(data_dir=tmp_path, admin_token=token))


def _serve(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bgscribe", "serve", "--no-pipeline", "--purge-interval", "0",
                             *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={k: v for k, v in {**os.environ, **(env or {})}.items()
                                 if k not in ("BGSCRIBE_ADMIN_TOKEN", "BGSCRIBE_CONFIG")})


def _wait_up(url: str, proc: subprocess.Popen, **kw) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            httpx.get(url + "/api/v1/health", timeout=1, **kw)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer")


def _stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.terminate()
    return proc.communicate(timeout=30)


def test_serve_with_the_example_config_placeholder_refuses_to_start(tmp_path):
    example = (ROOT / "hardware/bgscribe-server.toml.example").read_text()
    assert "admin_token" not in tomllib.loads(example)  # the example ships no token: one is made on first start
    cfg = tmp_path / "bgscribe.toml"
    cfg.write_text(f'data_dir = "{tmp_path / "data"}"\nadmin_token = "change-me"\n')
    p = _serve(tmp_path, "--config", str(cfg))
    out, err = p.communicate(timeout=60)
    assert p.returncode == 2 and "refusing to start: admin_token is a known placeholder" in err
    # the old flag still works, with a warning that `ps` shows it
    p = _serve(tmp_path, "--data", str(tmp_path / "data"), "--admin-token", "change-me")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and "--admin-token puts the staff token on the command line" in err


def test_a_staff_token_is_made_on_first_start_printed_once_and_files_are_owner_only(tmp_path):
    data, port = tmp_path / "data", free_port()
    tokens = tmp_path / "boards"
    tokens.write_text(f"7={TOKEN}\n")
    url = f"http://127.0.0.1:{port}"
    p = _serve(tmp_path, "--data", str(data), "--port", str(port), "--board-tokens", str(tokens), "--event", "E")
    _wait_up(url, p)
    m, seg = make_segment()
    h = auth()
    assert httpx.post(f"{url}{BASE}/7/segments", json=m, headers=h).status_code == 200
    assert httpx.put(f"{url}{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=seg,
                     headers=h).status_code == 200
    assert httpx.post(f"{url}{BASE}/7/segments/{m['segment_id']}/complete", headers=h).status_code == 200
    _, err = _stop(p)
    token = (data / "admin-token").read_text().strip()
    assert len(token) >= 32 and token in err and "shown once" in err
    # database, footage, the token: this user's only
    for f in [data / "admin-token", data / "bgscribe.db", *(data / "footage").rglob("*.mp4")]:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    for d in [data, data / "footage", data / "staging", *(x for x in (data / "footage").rglob("*") if x.is_dir())]:
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    # the second start uses the kept token and does not print it again
    p = _serve(tmp_path, "--data", str(data), "--port", str(port))
    _wait_up(url, p)
    ok = httpx.get(f"{url}/api/v1/events", headers={"Authorization": f"Bearer {token}"})
    bad = httpx.get(f"{url}/api/v1/events", headers={"Authorization": "Bearer change-me"})
    _, err = _stop(p)
    assert ok.status_code == 200 and bad.status_code == 401 and token not in err


# ----------------------------------------------------------------------------- bodies


def test_a_body_without_credentials_is_never_read(live):
    port = live.settings.port
    big = 400 << 20
    for path in ("/api/v1/setup/events", "/api/v1/matches/1/transcript", "/events", f"{BASE}/7/segments",
                 f"{BASE}/7/segments/b07-20261129T170000000Z/data?offset=0"):
        headers = "Authorization: Bearer wrong-token-1234567\n" if "ingest" in path else ""
        status, h, body = raw_request(port, f"POST {path} HTTP/1.1\nHost: x\nContent-Type: application/json\n"
                                            f"{headers}Content-Length: {big}\n", b"{" * 4096)
        # answered at once, the 400 MB never sent: nothing was waiting for the body
        assert status in (401, 303), (path, status, body)
    assert list(live.settings.staging_path.rglob("*")) == []


def test_bodies_are_limited_per_route_while_they_are_read(live):
    port = live.settings.port
    with live.client() as c:
        csrf = login(c, "ann")["X-CSRF-Token"]
        cookie = f"bgscribe_session={c.cookies['bgscribe_session']}"
        # declared too large: 413 before a byte is read
        status, _, _ = raw_request(port, f"POST /api/v1/review/x HTTP/1.1\nHost: x\nCookie: {cookie}\n"
                                         f"X-CSRF-Token: {csrf}\nContent-Length: {400 << 20}\n", b"{")
        assert status == 413
        # no length given (chunked): counted as it is read, 413 once past 256 KiB of JSON
        chunk = b"x" * 65536
        body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(6))
        status, _, text = raw_request(port, "POST /api/v1/setup/events HTTP/1.1\nHost: x\n"
                                            f"Cookie: {cookie}\nX-CSRF-Token: {csrf}\n"
                                            "Content-Type: application/json\nTransfer-Encoding: chunked\n", body)
        assert status == 413 and b"larger than this route accepts" in text
        # the login form takes 16 KiB
        r = httpx.post(live.url + "/api/v1/login", json={"username": "ann", "password": "x" * 20_000})
        assert r.status_code == 413
    # ingest: a manifest of 100 KB, a chunk over max_chunk_bytes
    m, data = make_segment()
    r = httpx.post(live.url + f"{BASE}/7/segments", json={**m, "junk": "x" * 100_000}, headers=auth())
    assert r.status_code == 413
    assert httpx.post(live.url + f"{BASE}/7/segments", json=m, headers=auth()).status_code == 200
    live.settings.max_chunk_bytes = 100_000
    r = httpx.put(live.url + f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0},
                  content=data[:100_001], headers=auth())
    assert r.status_code == 413
    assert (live.settings.staging_path / "board07" / f"{m['segment_id']}.mp4.part").exists() is False


def test_an_upload_whose_agent_hangs_up_mid_body_keeps_nothing_and_logs_no_traceback(live, caplog):
    """An agent's upload that times out on a loaded server closes its connection halfway through a chunk: nothing of
    that chunk is staged, the server notes it in one line, and the chunk sent again is taken."""
    import logging
    import socket

    caplog.set_level(logging.INFO, logger="bgscribe.server")
    caplog.set_level(logging.INFO, logger="uvicorn.error")
    uvicorn_log = logging.getLogger("uvicorn.error")
    uvicorn_log.addHandler(caplog.handler)  # (uvicorn's loggers do not reach the root logger, where caplog listens)
    try:
        m, data = make_segment()
        assert httpx.post(live.url + f"{BASE}/7/segments", json=m, headers=auth()).status_code == 200
        path = f"{BASE}/7/segments/{m['segment_id']}/data?offset=0"
        with socket.create_connection(("127.0.0.1", live.settings.port), timeout=5) as s:
            s.sendall((f"PUT {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                       f"Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n").encode()
                      + data[:40_000])
            time.sleep(0.5)
        deadline = time.time() + 10
        while not any("went away" in r.getMessage() or r.exc_info for r in caplog.records) and time.time() < deadline:
            time.sleep(0.1)
        assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
        assert any("went away" in r.getMessage() for r in caplog.records)
        part = live.settings.staging_path / "board07" / f"{m['segment_id']}.mp4.part"
        assert not part.exists() or part.stat().st_size == 0
        r = httpx.put(live.url + path, content=data[:100_000], headers=auth())
        assert r.status_code == 200 and r.json()["received"] == 100_000
    finally:
        uvicorn_log.removeHandler(caplog.handler)


def test_unfinished_uploads_are_deleted_when_stale(live):
    from review_ui.app import run_purge

    m, _ = make_segment()
    assert httpx.post(live.url + f"{BASE}/7/segments", json=m, headers=auth()).status_code == 200
    (staged,) = live.settings.staging_path.rglob("*.json")
    run_purge(live.app, "test")
    assert staged.exists()  # fresh: kept
    old = time.time() - 49 * 3600
    os.utime(staged, (old, old))
    run_purge(live.app, "test")
    assert not staged.exists()


# ----------------------------------------------------------------------------- logins


def test_logins_are_throttled_per_account_and_per_address(live):
    url = live.url + "/api/v1/login"
    for _ in range(5):
        assert httpx.post(url, json={"username": "ann", "password": "wrong password!"}).status_code == 401
    r = httpx.post(url, json={"username": "ann", "password": PASSWORD})  # the right one, too late
    assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 300
    assert "too many failed logins for this account; try again in" in r.json()["detail"]
    assert httpx.post(url, json={"username": "ben", "password": PASSWORD}).status_code == 200  # ben is not ann
    # the form says the same, as a page
    with live.client() as c:
        page = c.get("/login")
        csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        r = c.post("/login", data={"username": "ann", "password": PASSWORD, "csrf_token": csrf})
        assert r.status_code == 429 and "Too many failed logins for this account" in r.text
    # one address guessing at many accounts
    for i in range(15):
        httpx.post(url, json={"username": f"nobody{i}", "password": "wrong password!"})
    r = httpx.post(url, json={"username": "dora", "password": PASSWORD})
    assert r.status_code == 429 and "from this address" in r.json()["detail"]


def test_a_password_has_12_characters_and_errors_do_not_echo_input(live):
    with live.client() as c:
        h = login(c, "dora")
        r = c.post("/api/v1/users", json={"username": "carl", "password": "eleven char", "role": "staff"}, headers=h)
        assert r.status_code == 422 and "at least 12 characters" in r.json()["detail"]
        r = c.post("/api/v1/login", json={"username": "ann", "password": 123456789012345})
        assert r.status_code == 422 and "123456789012345" not in r.text and "pydantic" not in r.text
        assert r.json()["detail"] == [{"loc": ["body", "password"], "msg": "Input should be a valid string"}]
    r = httpx.post(live.url + f"{BASE}/7/segments", json={"board": 7, "segment_id": "x" * 50}, headers=auth())
    assert r.status_code == 422 and "pydantic" not in r.text and "x" * 50 not in r.text
    assert "server" not in httpx.get(live.url + "/api/v1/health").headers  # no library name and version


# ----------------------------------------------------------------------------- staff power


def test_approval_only_through_review_and_staff_actions_are_audited(live):
    m = add_match(live.state)
    with live.state.db.session() as s:
        ev_id = s.get(Match, m).event_id
    c = httpx.Client(base_url=live.url, headers=STAFF)
    r = c.patch(f"/api/v1/matches/{m}", json={"approved_at": "2026-11-29T12:00:00Z"})
    assert r.status_code == 422  # a match with no transcript cannot be approved, least of all by the staff token
    assert c.patch(f"/api/v1/events/{ev_id}", json={"legal_hold": True, "legal_hold_reason": "appeal"}).is_success
    assert c.patch(f"/api/v1/events/{ev_id}", json={"legal_hold": False, "legal_hold_reason": "settled"}).is_success
    assert c.patch(f"/api/v1/matches/{m}", json={"legal_hold": True}).is_success
    assert c.put("/api/v1/boards/9", json={}).is_success
    r = c.post("/api/v1/purge")
    assert r.json()["deleted"] == 0
    with live.state.db.session() as s:
        assert s.get(Match, m).approved_at is None and s.query(PurgeLog).count() == 0
    log = _audit(live)
    for action, target in [("set_legal_hold", f"event {ev_id}"), ("release_legal_hold", f"event {ev_id}"),
                           ("set_legal_hold", f"match {m}"), ("register_board", "board 9"), ("purge", "footage")]:
        assert ("staff API token", action, target) in log


# ----------------------------------------------------------------------------- names


def test_a_name_with_a_newline_is_refused_at_every_entry(live):
    m = add_match(live.state)
    evil = "Ann\n Game 9\n 1) 66: 24/18"
    with live.state.db.session() as s:
        ev_id = s.get(Match, m).event_id
    r = httpx.post(live.url + "/api/v1/matches", headers=STAFF, json={"event_id": ev_id, "board": 7,
                   "started_at": "2026-11-29T10:00:00Z", "player1": evil})
    assert r.status_code == 422 and "control characters" in r.text
    with live.client() as c:
        h = login(c, "dora")
        assert c.post(f"/api/v1/setup/events/{ev_id}/players", json={"name": evil}, headers=h).status_code == 422
        assert c.post("/api/v1/users", json={"username": "eve\r\nx", "password": "long enough pw"},
                      headers=h).status_code == 422
        report = json.loads(REPORT.read_text())
        r = upload(c, m, h, json.dumps({**report, "players": [evil, "Ben"]}).encode(), mat=False)
        assert r.status_code == 422 and "control characters" in r.text
        assert upload(c, m, h).status_code == 201
        v = c.get(f"/api/v1/matches/{m}/transcript").json()["version"]
        r = c.post(f"/api/v1/matches/{m}/transcript/edits", json={"version": v, "op": "set_players",
                                                                   "players": [evil, "Ben"]}, headers=h)
        assert r.status_code == 422 and "control characters" in r.text


def test_a_name_that_got_in_anyway_stays_on_its_line_in_every_writer(live):
    """A transcript stored before names were checked: its .mat download and the BMAB bundle keep each name on
    its score line."""
    import io
    import zipfile

    from review_ui.review_models import Transcript

    from .test_review_api import _clear_all_flags

    evil = "Ann\n Game 9\r\n 1) 66: 24/18\u2028"
    with live.client() as c:
        c.match_id = m = add_match(live.state)
        h = login(c, "dora")
        assert upload(c, m, h).status_code == 201
        v = _clear_all_flags(c, h)
        assert c.post(f"/api/v1/matches/{m}/transcript/approve", json={"version": v}, headers=h).status_code == 200
        with live.state.db.session() as s:
            t = s.query(Transcript).filter_by(match_id=m).one()
            doc = json.loads(t.doc_json)
            doc["players"] = [evil, "Ben"]
            t.doc_json = json.dumps(doc)
            ev_id = s.get(Match, m).event_id
            s.commit()
        mat = c.get(f"/api/v1/matches/{m}/transcript.mat").text
        with zipfile.ZipFile(io.BytesIO(c.get(f"/api/v1/events/{ev_id}/bmab-bundle.zip").content)) as z:
            bundled = z.read(next(n for n in z.namelist() if n.endswith(".mat"))).decode()
    for text in (mat, bundled):
        lines = text.splitlines()
        assert " Game 9" not in lines and " 1) 66: 24/18" not in lines and "\u2028" not in text
        assert any(ln.startswith(" Ann Game 9 1) 66: 24/18 : 0") for ln in lines)


# ----------------------------------------------------------------------------- ingest and frames


def test_ingest_refuses_a_newline_id_non_video_and_time_backwards(live):
    m, data = make_segment()
    h = auth()
    r = httpx.post(live.url + f"{BASE}/7/segments", json={**m, "segment_id": m["segment_id"] + "\n"}, headers=h)
    assert r.status_code == 422
    r = httpx.put(live.url + f"{BASE}/7/segments/{m['segment_id']}%0A/data", params={"offset": 0}, content=data,
                  headers=h)
    assert r.status_code == 404
    r = httpx.post(live.url + f"{BASE}/7/segments", json={**m, "end": "2026-11-29T16:00:00.000Z"}, headers=h)
    assert r.status_code == 422 and "end is before start" in r.text
    junk = b"<html>not a video</html>" * 100
    m2 = {**m, "sha256": hashlib.sha256(junk).hexdigest(), "bytes": len(junk)}
    assert httpx.post(live.url + f"{BASE}/7/segments", json=m2, headers=h).status_code == 200
    r = httpx.put(live.url + f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=junk,
                  headers=h)
    assert r.status_code == 422 and "not an MP4 file" in r.text


def test_heartbeat_error_is_capped_and_board_tokens_are_long(live):
    r = httpx.post(live.url + f"{BASE}/7/heartbeat", json={"state": "error", "error": "x" * (1 << 20)},
                   headers=auth())
    assert r.status_code == 200
    with live.state.db.session() as s:
        assert len(s.query(Heartbeat).one().error) == 2000
    with live.client() as c:
        login(c, "ann")
        assert len(c.get("/api/v1/live/boards").content) < 20_000
    r = httpx.put(live.url + "/api/v1/boards/9", json={"token": "x"}, headers=STAFF)
    assert r.status_code == 422 and "at least 16" in r.text


# ----------------------------------------------------------------------------- headers, docs


def test_pages_and_api_are_not_cached_and_have_a_csp_and_docs_need_a_login(live):
    with live.client() as c:
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert c.get(path).status_code == 404
        assert c.get("/api/v1/openapi.json").status_code == 401
        login(c, "ann")
        assert "/api/v1/login" in c.get("/api/v1/openapi.json").json()["paths"]
        for path in ("/", "/login", "/account", "/api/v1/review/matches", "/api/v1/live/boards"):
            r = c.get(path)
            assert r.headers["cache-control"] == "no-store", path
            assert "script-src 'self'" in r.headers["content-security-policy"] and "unsafe-inline" not in \
                r.headers["content-security-policy"], path
        assert "no-store" not in c.get("/static/style.css").headers.get("cache-control", "")


# ----------------------------------------------------------------------------- accounts


def _csrf(page: str) -> str:
    return page.split('name="csrf_token" value="')[1].split('"')[0]


def test_accounts_on_the_page_disable_change_password_revoke(live):
    ann, ann2, dora = live.client(), live.client(), live.client()
    login(ann, "ann")
    login(ann2, "ann")
    login(dora, "dora")
    # ann changes her password: her other session ends, the old password stops working
    csrf = _csrf(ann.get("/account").text)
    r = ann.post("/account/password", data={"csrf_token": csrf, "current": PASSWORD, "new": "short",
                                            "again": "short"})
    assert r.status_code == 422 and "at least 12 characters" in r.text
    r = ann.post("/account/password", data={"csrf_token": csrf, "current": PASSWORD, "new": "a new long password",
                                            "again": "a new long password"})
    assert r.status_code == 303
    assert ann.get("/api/v1/me").status_code == 200 and ann2.get("/api/v1/me").status_code == 401
    assert httpx.post(live.url + "/api/v1/login", json={"username": "ann", "password": PASSWORD}).status_code == 401
    # a director disables ann: her session ends and she cannot log in; staff cannot do this
    page = dora.get("/account").text
    assert "ann" in page and "Disable" in page
    assert ann.post("/accounts/ben/disable", data={"csrf_token": _csrf(ann.get("/account").text)}).status_code == 403
    assert dora.post("/accounts/ann/disable", data={"csrf_token": _csrf(page)}).status_code == 303
    assert ann.get("/api/v1/me").status_code == 401
    r = httpx.post(live.url + "/api/v1/login", json={"username": "ann", "password": "a new long password"})
    assert r.status_code == 401
    with live.state.db.session() as s:
        assert s.query(User).filter_by(username="ann").one().disabled_at is not None
    # ben's sessions revoked by the director
    ben = live.client()
    login(ben, "ben")
    assert dora.post("/accounts/ben/revoke", data={"csrf_token": _csrf(page)}).status_code == 303
    assert ben.get("/api/v1/me").status_code == 401
    actions = {(a, t) for _u, a, t in _audit(live)}
    assert {("change_password", "user ann"), ("disable_user", "user ann"), ("revoke_sessions", "user ben")} <= actions


# ----------------------------------------------------------------------------- TLS


def test_tls_self_signed_certificate_secure_cookie_and_a_pinned_agent(tmp_path, settings):
    from capture.pinning import fingerprint
    from capture.uploader import Client, Rejected

    r = subprocess.run([sys.executable, "-m", "bgscribe", "make-cert", "--name", "127.0.0.1", "--name",
                        "bgscribe.local", "--out", str(tmp_path / "tls")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cert, key = tmp_path / "tls/server.crt", tmp_path / "tls/server.key"
    fp = fingerprint(cert.read_text())
    assert f"SHA-256 fingerprint: {fp}" in r.stdout and stat.S_IMODE(key.stat().st_mode) == 0o600
    settings.tls_cert, settings.tls_key = cert, key
    with LiveServer(settings) as srv:
        with srv.state.db.session() as s:
            register_board(s, 7, TOKEN, create_event(s, "E"))
            s.commit()
        add_users(srv.state)
        with pytest.raises(httpx.ConnectError):  # not a certificate anybody vouches for
            httpx.get(srv.url + "/api/v1/health")
        r = httpx.post(srv.url + "/api/v1/login", json={"username": "ann", "password": PASSWORD},
                       verify=str(cert))
        assert r.status_code == 200 and "secure" in r.headers["set-cookie"].lower()
        assert r.headers["strict-transport-security"].startswith("max-age=")
        # the agent: the pinned fingerprint, the certificate as its CA file, a wrong pin (nothing sent)
        Client(srv.url, TOKEN, 7, pin=fp.replace(":", "").lower()).heartbeat({"state": "pinned"})
        Client(srv.url, TOKEN, 7, ca_file=str(cert)).heartbeat({"state": "ca file"})
        with pytest.raises(Rejected, match="refusing to send it anything"):
            Client(srv.url, TOKEN, 7, pin="00" * 32).heartbeat({"state": "wrong pin"})
        with srv.state.db.session() as s:
            assert [h.state for h in s.query(Heartbeat).order_by(Heartbeat.id)] == ["pinned", "ca file"]


@pytest.mark.parametrize("trusted", ["127.0.0.1", ""])
def test_behind_a_trusted_tls_proxy_the_cookie_is_secure(settings, trusted):
    settings.trusted_proxies = trusted
    with LiveServer(settings) as srv:
        add_users(srv.state)
        r = httpx.post(srv.url + "/api/v1/login", json={"username": "ann", "password": PASSWORD},
                       headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"})
        assert r.status_code == 200
        assert ("secure" in r.headers["set-cookie"].lower()) == bool(trusted)
        with srv.state.db.session() as s:
            (row,) = s.query(AuditLog).filter_by(action="login").all()
        assert row.target == ("from 203.0.113.9" if trusted else "from 127.0.0.1")



def test_a_new_token_can_follow_an_option_on_a_command_line():
    """(`bgscribe capture --token T`: a token starting with "-" was taken for an option, one board in 64)"""
    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000 and all(len(t) == 32 for t in tokens)
    assert not any(t.startswith("-") for t in tokens)
