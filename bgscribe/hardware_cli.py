"""The camera kit commands: `hardware plan`, `hardware markers`, `check-camera` and `register-board`."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def add_hardware_commands(sub) -> None:
    p = sub.add_parser(
        "hardware", help="plan a board camera's mount; print the corner marker sheet",
        description="The camera kit. 'plan' works out how high to mount a camera so the board fills the frame "
                    "and whether a die gets enough pixels to be read (thresholds measured with the simulator); "
                    "'markers' writes the printable corner marker sheet. See hardware/README.md.")
    hw = p.add_subparsers(dest="hw_command", metavar="WHAT")
    pl = hw.add_parser(
        "plan", help="mount height and pixels per die / checker for a camera",
        description="For a camera straight above the board's centre, the board's long side along the picture: the "
                    "mount height at which the board plus a margin fills the frame, pixels per millimetre, per "
                    "die, per pip and per checker, and a verdict against what the vision stage needs (a die of at "
                    "least 12 px; see hardware/README.md). Exit status 1 when the camera cannot do it.")
    pl.add_argument("--board-width-mm", type=float, default=None,
                    help="the board's outer width, frame and trays included (default: a 19-inch tournament board, "
                         "684 mm)")
    pl.add_argument("--board-depth-mm", type=float, default=None,
                    help="outer depth, player to player (default: in the tournament board's proportion, 480 mm)")
    pl.add_argument("--resolution", default="1280x720", metavar="WxH", help="the recording resolution "
                    "(default: %(default)s)")
    pl.add_argument("--hfov", type=float, default=62.0, metavar="DEG",
                    help="the lens's horizontal field of view at that resolution, degrees (default: %(default)s; "
                         "webcams say 'diagonal' - 78 deg diagonal is about 70 across)")
    pl.add_argument("--margin", type=float, default=None, metavar="FRACTION",
                    help="room round the board on each side, as a fraction of its size (default: 0.12)")
    pl.add_argument("--json", action="store_true", help="print the plan as JSON")
    pl.set_defaults(func=cmd_hardware_plan)
    mk = hw.add_parser(
        "markers", help="write the printable corner marker sheet (PDF or PNG)",
        description="Write a page of four ArUco markers (4x4_50, ids 0-3), one per board corner, with cut lines "
                    "and a 100 mm scale bar. Print at 100 % on matt paper.")
    mk.add_argument("--out", required=True, metavar="FILE.pdf|FILE.png")
    mk.add_argument("--dpi", type=int, default=300, help="resolution (default: %(default)s)")
    mk.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default: %(default)s)")
    mk.add_argument("--marker-mm", type=float, default=50.0, help="marker width in mm (default: %(default)s)")
    mk.set_defaults(func=cmd_hardware_markers)
    p.set_defaults(func=lambda a, parser=p: _usage(parser))

    p = sub.add_parser(
        "check-camera", help="grade a live camera in seconds: board in view, sharpness, light, glare, frame rate",
        description="Open a camera (V4L2 device, rtsp://, http:// MJPEG, udp:// MPEG-TS, or a video file), read it "
                    "for a few seconds and grade it: the whole board in view and calibrated, pixels per die and "
                    "checker, sharpness, exposure, glare (and on which half of the board), frame rate. Each item "
                    "passes, warns or fails with what to fix. Stop the board's capture agent first when the camera "
                    "is a USB device (only one program can open it). Exit status: 0 pass, 1 fail, 2 the camera "
                    "could not be read.")
    p.add_argument("source", nargs="?", metavar="SRC",
                   help="the camera; default with --board: SOURCE from the board's agent settings file")
    p.add_argument("--board", type=int, help="the board number (read SOURCE from /etc/bgscribe/capture-N.env when "
                                             "SRC is not given)")
    p.add_argument("--env-file", metavar="FILE", help="agent settings file to take SOURCE from "
                                                      "(default: /etc/bgscribe/capture-N.env)")
    p.add_argument("--seconds", type=float, default=4.0, help="how long to read the camera (default: %(default)s)")
    p.add_argument("--size", metavar="WxH", help="ask a V4L2 camera for this resolution (default: 1280x720)")
    p.add_argument("--hfov", type=float, default=None, metavar="DEG",
                   help="the lens's horizontal field of view, for the distances in the advice (default: 62)")
    p.add_argument("--mount-height-cm", type=float, default=None,
                   help="the lens's height above the table, for the distances in the advice")
    p.add_argument("--open-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="keep trying to connect this long (a camera still booting refuses; default: %(default)s)")
    p.add_argument("--save-still", metavar="FILE.jpg", help="also save the merged still that was graded, with the "
                                                          "playing field's outline drawn on it")
    p.add_argument("--field", metavar='"x,y x,y x,y x,y"',
                   help="the playing field's corners in the camera's pixels, any order round the field (instead of "
                        "the outline the camera stage finds)")
    p.add_argument("--confirm", action="store_true",
                   help="ask whether the outline is on the playing field; on yes, keep it on the server as the "
                        "board's field (needs --board, the server from --server or the settings file's SERVER, and "
                        "$BGSCRIBE_ADMIN_TOKEN)")
    p.add_argument("--server", metavar="URL", help="the bgscribe server, for --confirm (default: SERVER from the "
                                                   "board's agent settings file)")
    p.add_argument("--json", action="store_true", help="print the grade as JSON")
    add_tls_options(p)
    p.set_defaults(func=cmd_check_camera)

    p = sub.add_parser(
        "register-board", help="register a board's agent with the server and write its settings file",
        description="Register board N with the bgscribe server (staff API, PUT /api/v1/boards/N with the admin "
                    "token): the server makes a fresh ingest token and stores only its hash. The agent's settings "
                    "file (SOURCE, SERVER, BGSCRIBE_TOKEN, recording settings; mode 600) is written to --out. "
                    "Registering a board again replaces its token: the old agent is refused until it gets the new "
                    "file.")
    p.add_argument("--server", required=True, metavar="URL", help="the server, e.g. http://192.168.10.2:8000")
    p.add_argument("--admin-token", help="the staff API token (default: $BGSCRIBE_ADMIN_TOKEN)")
    p.add_argument("--board", type=int, required=True, help="board number (1-999)")
    p.add_argument("--event-id", type=int, help="attach the board to this event")
    p.add_argument("--source", default="/dev/video0", help="the camera, written as SOURCE (default: %(default)s)")
    p.add_argument("--agent-server", metavar="URL",
                   help="the server's address as the agent sees it, written as SERVER (default: --server)")
    p.add_argument("--out", metavar="FILE", help="settings file to write (default: capture-N.env here; on the "
                                                 "agent: /etc/bgscribe/capture-N.env)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    add_tls_options(p)
    p.set_defaults(func=cmd_register_board)


def add_tls_options(p) -> None:
    """How a command trusts an https:// server (the agent and the staff commands alike): a pinned fingerprint, or
    a CA file (default: the system's CAs)."""
    p.add_argument("--server-fingerprint", metavar="SHA256",
                   help="https server only: trust exactly the certificate with this SHA-256 fingerprint "
                        "(`bgscribe make-cert` prints it; default: $BGSCRIBE_SERVER_FINGERPRINT)")
    p.add_argument("--ca-file", metavar="PEM",
                   help="https server only: trust certificates signed by (or equal to) this one "
                        "(default: $BGSCRIBE_CA_FILE, else the system's CAs)")


def server_verify(server: str, args, timeout: float = 10.0):
    """httpx's `verify` for the server: the pinned certificate's context, the CA file, or the system's CAs.
    Raises PermissionError when the server shows another certificate than the pinned one (nothing is sent)."""
    from capture.pinning import PinMismatch, server_trust

    pin = args.server_fingerprint or os.environ.get("BGSCRIBE_SERVER_FINGERPRINT")
    ca_file = args.ca_file or os.environ.get("BGSCRIBE_CA_FILE")
    if (pin or ca_file) and not server.startswith("https://"):
        raise ValueError("--server-fingerprint and --ca-file need an https:// server")
    try:
        return server_trust(server, pin, ca_file, timeout)
    except PinMismatch as e:
        raise PermissionError(str(e)) from None


def _usage(p) -> int:
    p.print_help()
    return EXIT_USAGE


def _err(cmd: str, msg: str) -> None:
    print(f"bgscribe {cmd}: {msg}", file=sys.stderr)


def parse_resolution(s: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in s.lower().split("x"))
    except ValueError:
        raise ValueError(f"resolution must look like 1280x720, not {s!r}") from None
    if w <= 0 or h <= 0:
        raise ValueError(f"resolution must be positive, not {s!r}")
    return w, h


# ---------------------------------------------------------------------- hardware plan / markers


def cmd_hardware_plan(args) -> int:
    from vision.camplan import DEFAULT_MARGIN, format_plan, plan

    try:
        w, h = parse_resolution(args.resolution)
        p = plan(w, h, args.hfov, board_w_mm=args.board_width_mm, board_h_mm=args.board_depth_mm,
                 margin=DEFAULT_MARGIN if args.margin is None else args.margin)
    except ValueError as e:
        _err("hardware plan", str(e))
        return EXIT_USAGE
    print(json.dumps(p.as_dict(), indent=2) if args.json else format_plan(p))
    return EXIT_FAIL if p.verdict == "fail" else EXIT_OK


def cmd_hardware_markers(args) -> int:
    from vision.markers import write_sheet

    try:
        path = write_sheet(args.out, dpi=args.dpi, paper=args.paper, marker_mm=args.marker_mm)
    except ValueError as e:
        _err("hardware markers", str(e))
        return EXIT_USAGE
    except OSError as e:
        _err("hardware markers", f"cannot write {args.out}: {e}")
        return EXIT_FAIL
    print(f"wrote {path}: four corner markers, {args.marker_mm:g} mm, {args.paper.upper()} - print at 100 %")
    return EXIT_OK


# ---------------------------------------------------------------------- check-camera


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of an agent settings file (comments and blank lines skipped)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip().strip('"').strip("'")
    return out


def grab(source: str, seconds: float, size: tuple[int, int] | None = None, keep: int = 12,
         open_timeout: float = 10.0) -> tuple[list, float | None, int]:
    """Read a source for ``seconds``: up to ``keep`` frames spread over the time (BGR arrays), the frame rate
    achieved (None with fewer than 3 frames) and the number of frames received. Raises SourceLost."""
    from capture.sources import EndOfStream, Source, SourceLost, SourceOptions, source_kind

    is_file = source_kind(source) == "file"
    opts = SourceOptions(width=size[0] if size else None, height=size[1] if size else None,
                         open_timeout=open_timeout, read_timeout=max(3.0, min(seconds, 10.0)),
                         speed=0.0 if is_file else 1.0)
    stamps: list[float] = []
    frames: list = []
    every = 1
    deadline = time.monotonic() + open_timeout
    while True:  # a camera that is still starting refuses the connection: retry until open_timeout
        src = Source(source, opts)
        start = time.monotonic()
        try:
            for wall, frame in src.frames():
                if not stamps:
                    start = time.monotonic()
                stamps.append(wall)
                if (len(stamps) - 1) % every == 0:
                    frames.append(frame.to_ndarray(format="bgr24"))
                    if len(frames) >= 2 * keep:  # bounded memory: keep every other frame, sample half as often
                        frames = frames[::2]
                        every *= 2
                span = (stamps[-1] - stamps[0]) if is_file else time.monotonic() - start
                if span >= seconds:
                    break
            break
        except EndOfStream:
            break
        except SourceLost:
            if stamps:  # the stream dropped after some frames: grade those
                break
            if is_file or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
        finally:
            src.close()
    # the rate over the steady part: a live stream often delivers what it buffered at connection in a burst
    steady = [t for t in stamps if t >= stamps[0] + min(1.0, seconds / 4)] if stamps and not is_file else stamps
    fps = (len(steady) - 1) / (steady[-1] - steady[0]) if len(steady) >= 3 and steady[-1] > steady[0] else None
    if len(frames) > keep:
        step = len(frames) / keep
        frames = [frames[int(i * step)] for i in range(keep)]
    return frames, fps, len(stamps)


def cmd_check_camera(args) -> int:
    import cv2

    from capture.sources import SourceLost
    from vision.camcheck import grade

    source, settings = args.source, {}
    env = Path(args.env_file or f"/etc/bgscribe/capture-{args.board}.env")
    if source is None:
        if args.board is None:
            _err("check-camera", "give the camera (SRC) or --board N to read it from the agent's settings file")
            return EXIT_USAGE
        try:
            settings = read_env_file(env)
        except OSError as e:
            _err("check-camera", f"cannot read {env}: {e.strerror or e}; give the camera as SRC")
            return EXIT_USAGE
        source = settings.get("SOURCE")
        if not source:
            _err("check-camera", f"{env} has no SOURCE=...; give the camera as SRC")
            return EXIT_USAGE
    elif args.board is not None and env.is_file():
        try:
            settings = read_env_file(env)
        except OSError:
            settings = {}
    server = args.server or settings.get("SERVER")
    admin = os.environ.get("BGSCRIBE_ADMIN_TOKEN", "")
    if args.confirm:
        problem = ("--confirm needs --board" if args.board is None else
                   "--confirm needs the server: --server URL, or SERVER in the board's settings file" if not server
                   else "--confirm needs $BGSCRIBE_ADMIN_TOKEN (the server's staff token)" if not admin else "")
        if problem:
            _err("check-camera", problem)
            return EXIT_USAGE
    given = None
    if args.field:
        from vision.still import parse_field

        try:
            given = parse_field(args.field)
        except ValueError as e:
            _err("check-camera", str(e))
            return EXIT_USAGE
    if args.seconds <= 0:
        _err("check-camera", "--seconds must be positive")
        return EXIT_USAGE
    try:
        size = parse_resolution(args.size or "1280x720")  # asked of V4L2 devices only; streams come as they are
    except ValueError as e:
        _err("check-camera", str(e))
        return EXIT_USAGE
    try:
        frames, fps, n = grab(source, args.seconds, size, open_timeout=args.open_timeout)
    except SourceLost as e:
        _err("check-camera", f"cannot read the camera: {e}")
        return EXIT_USAGE
    if not frames:
        _err("check-camera", f"no frames from {source} in {args.seconds:g} s")
        return EXIT_USAGE
    g = grade(frames, fps, hfov_deg=args.hfov,
              mount_height_mm=args.mount_height_cm * 10 if args.mount_height_cm else None)
    from vision.camcheck import merge

    still = merge(frames)
    field = camera_field(still, given)
    if args.save_still:
        cv2.imwrite(args.save_still, draw_field(still, field))
    label = f"board {args.board}: " if args.board is not None else ""
    if args.json:
        doc = {"source": source, "board": args.board, "frames_received": n, **g.as_dict(), "field": field}
        print(json.dumps(doc, indent=2))
    else:
        print(label + g.format().replace("camera check:", f"camera check of {source}:", 1))
        print(field_line(field, args.board))
    if args.confirm and not confirm_field(field, args, server, admin, still):
        return EXIT_FAIL
    return EXIT_OK if g.passed else EXIT_FAIL


def camera_field(still, given=None) -> dict:
    """The playing field on the camera's still: found by its structure, or the corners given (then judged
    only for which way round they lie). Corners TL, TR, BR, BL as the picture shows them. Where there is a field
    or an outline to show, the board's profile measured on it (`vision.profilefit`: the bar's share of the field's
    width, a point's of its height, its height's of its width) and the 24 points where that profile puts them."""
    from vision.fieldfind import find_field, given_field, order_corners
    from vision.profilefit import fit_height
    from vision.readers import default_readers
    from vision.still import point_outlines

    fit = given_field(still, given) if given is not None else find_field(still)
    # an outline not sure (its points lie a point or more from it) is still shown: a person may confirm it
    shown = given is not None or fit.found or fit.outlined
    profile, points = None, []
    if shown:
        fit = fit_height(still, fit, default_readers())
        bar, length, height = fit.geometry().field_shape()
        profile = {"bar_frac": round(bar, 4), "point_len": round(length, 3), "height": round(height, 3),
                   "bar": "across" if fit.turned else "up-down"}
        points = [[[round(float(x), 1), round(float(y), 1)] for x, y in t] for t in point_outlines(fit)]
    return {"found": bool(fit.found), "given": given is not None, "quality": round(float(fit.quality), 2),
            "outline": bool(fit.found or fit.outlined), "points_off": round(float(fit.points_off), 2),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in order_corners(fit.corners)],
            "size": [int(still.shape[1]), int(still.shape[0])], "profile": profile, "points": points}


def draw_field(still, field: dict):
    """The field's outline on the still (green: found, amber: an outline not sure, red: not found), and thinner the
    24 points where the board's profile puts them: a person checks both at once."""
    import cv2
    import numpy as np

    out = still.copy()
    colour = (60, 200, 60) if field["found"] else (0, 170, 255) if field["outline"] else (40, 40, 230)
    width = max(2, out.shape[1] // 400)
    if field.get("points"):
        cv2.polylines(out, list(np.int32(np.round(field["points"]))), True, colour, max(1, width // 2), cv2.LINE_AA)
    pts = np.int32(np.round(field["corners"]))
    cv2.polylines(out, [pts], True, colour, width, cv2.LINE_AA)
    return out


def profile_line(field: dict) -> str:
    p = field.get("profile")
    if not p:
        return ""
    return (f"\n  its profile: the bar {p['bar_frac']:.1%} of the field's width, the points {p['point_len']:.0%} of "
            f"its height, the field {p['height']:.2f} as high as it is wide (the points drawn thin with --save-still)")


def field_line(field: dict, board: int | None) -> str:
    corners = " ".join(f"{x:.0f},{y:.0f}" for x, y in field["corners"])
    where = f"on the dashboard (board {board}'s card: set corners)" if board is not None else "on the dashboard"
    if field["given"]:
        return f"playing field: the corners given, {corners}" + profile_line(field)
    if field["found"]:
        return (f"playing field: found by its structure (quality {field['quality']:.2f}): {corners}\n"
                f"  check the outline (--save-still draws it) and confirm it with --confirm or {where}"
                + profile_line(field))
    if field["outline"]:
        return (f"playing field: an outline, not sure (the board's points lie {field['points_off']:.1f} point "
                f"widths from it): {corners}\n  check it closely (--save-still draws it) and confirm it with "
                f"--confirm, or give the corners with --field \"x,y x,y x,y x,y\" or click them {where}"
                + profile_line(field))
    return (f"playing field: not found (quality {field['quality']:.2f}); give its corners with --field "
            f"\"x,y x,y x,y x,y\" or click them {where}")


def confirm_field(field: dict, args, server: str, admin: str, still) -> bool:
    """Ask the person at the board whether the outline is right; on yes, keep it on the server."""
    import tempfile

    import cv2

    if not field["found"] and not field["outline"]:
        _err("check-camera", "no outline to confirm: give the field's corners with --field, or click them on the "
                             "dashboard")
        return False
    path = args.save_still
    if not path:  # a picture to look at while the question is asked, removed once it is answered
        fd, path = tempfile.mkstemp(prefix=f"bgscribe-board{args.board}-field-", suffix=".jpg")
        os.close(fd)
        cv2.imwrite(path, draw_field(still, field))
    try:
        return _ask_and_keep(field, args, server, admin, path)
    finally:
        if not args.save_still:
            os.unlink(path)


def _ask_and_keep(field: dict, args, server: str, admin: str, path: str) -> bool:
    """The question, with the outline drawn at ``path``; on yes, the field kept on the server."""
    # the question and its outcome on stderr: stdout stays the grade (JSON with --json)
    if not field["found"]:
        print(f"The outline is not sure: the board's points lie {field['points_off']:.1f} point widths from it "
              "(a tray or the frame taken in, or the field a point aside). Look closely.", file=sys.stderr)
    colour = "green" if field["found"] else "amber"
    print(f"Is the {colour} outline in {path} on the playing field of board {args.board} (the 24 points and the "
          "bar inside it, the trays and frame outside; the thin triangles on the board's points)? [y/N] ", end="",
          flush=True, file=sys.stderr)
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        print("not confirmed: nothing kept. Give the corners with --field, or click them on the dashboard.",
              file=sys.stderr)
        return False
    w, h = field["size"]
    corners = [[x / w, y / h] for x, y in field["corners"]]
    try:
        send_field(server, admin, args.board, corners, verify=server_verify(server, args))
    except (PermissionError, LookupError, RuntimeError, OSError, ValueError) as e:
        _err("check-camera", f"the field was not kept: {e}")
        return False
    print(f"board {args.board}: field confirmed on {server}; its footage is read through these corners",
          file=sys.stderr)
    return True


def send_field(server: str, admin_token: str, board: int, corners: list, timeout: float = 10.0,
               verify=True) -> None:
    """PUT /api/v1/boards/{board}/field (the staff API): the board's field, as shares of the picture."""
    import httpx

    try:
        r = httpx.put(f"{server.rstrip('/')}/api/v1/boards/{board}/field", json={"corners": corners},
                      headers={"Authorization": f"Bearer {admin_token}"}, timeout=timeout, verify=verify)
    except httpx.HTTPError as e:
        raise OSError(f"cannot reach {server}: {e}") from e
    if r.status_code == 401:
        raise PermissionError("the server refused the staff token ($BGSCRIBE_ADMIN_TOKEN)")
    if r.status_code == 404:
        raise LookupError(f"the server has no board {board} (register it first)")
    if r.status_code != 200:
        raise RuntimeError(f"the server answered {r.status_code}: {r.text[:300]}")


# ---------------------------------------------------------------------- register-board

ENV_TEMPLATE = """\
# /etc/bgscribe/capture-{board}.env: settings of the capture agent for board {board} (see bgscribe-capture@.service).
# Written by `bgscribe register-board` on {when}. Every option is explained by `bgscribe capture --help`.
# Keep this file mode 600: it holds the token.

# The camera: a V4L2 device, rtsp://, http:// (MJPEG) or udp:// (MPEG-TS).
SOURCE={source}

# The bgscribe server and this board's ingest token (the server stores only its hash).
SERVER={server}
BGSCRIBE_TOKEN={token}
# Over https: the fingerprint `bgscribe make-cert` printed (nothing is sent to a server showing another).
# BGSCRIBE_SERVER_FINGERPRINT=

# Recording: 720p at 15 fps in 60-second segments with a keyframe every second.
SIZE=1280x720
FPS=15
SEGMENT_SECONDS=60
KEYFRAME_INTERVAL=1

# Disk guard for the spool: warn below WARN_FREE_MB; below MIN_FREE_MB close the segment cleanly
# and pause recording until uploads free room. Unconfirmed footage is never deleted.
WARN_FREE_MB=2048
MIN_FREE_MB=300

# On stop, keep uploading the spool this many seconds (the rest goes on the next start).
DRAIN=20
"""


def register_board(server: str, admin_token: str, board: int, event_id: int | None = None,
                   timeout: float = 10.0, transport=None, verify=True) -> str:
    """PUT /api/v1/boards/{board} without a token: the server makes one and returns it (once)."""
    import httpx

    body = {"event_id": event_id} if event_id is not None else {}
    with httpx.Client(base_url=server.rstrip("/"), timeout=timeout, transport=transport, verify=verify) as c:
        r = c.put(f"/api/v1/boards/{board}", json=body, headers={"Authorization": f"Bearer {admin_token}"})
    if r.status_code in (401, 403):
        raise PermissionError("the server refused the admin token (check --admin-token / $BGSCRIBE_ADMIN_TOKEN)")
    if r.status_code == 404:
        raise LookupError(f"the server has no event {event_id}" if event_id is not None else
                          f"{server} has no staff API at /api/v1/boards (is it a bgscribe server?)")
    if r.status_code >= 400:
        raise RuntimeError(f"the server answered {r.status_code}: {r.text[:200]}")
    token = r.json().get("token")
    if not token:
        raise RuntimeError("the server registered the board but returned no token")
    return token


def write_env_file(path: Path, board: int, source: str, server: str, token: str, pin: str | None = None) -> None:
    """The agent's settings file, written atomically with mode 600 (with the server's pinned fingerprint)."""
    text = ENV_TEMPLATE.format(board=board, source=source, server=server.rstrip("/"), token=token,
                               when=time.strftime("%Y-%m-%d %H:%M", time.localtime()))
    if pin:
        text = text.replace("# BGSCRIBE_SERVER_FINGERPRINT=\n", f"BGSCRIBE_SERVER_FINGERPRINT={pin}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def cmd_register_board(args) -> int:
    import httpx

    cmd = "register-board"
    if args.admin_token:
        print(f"{cmd}: warning: --admin-token puts the staff token on the command line, where `ps` shows it; "
              "set $BGSCRIBE_ADMIN_TOKEN instead", file=sys.stderr)
    admin = args.admin_token or os.environ.get("BGSCRIBE_ADMIN_TOKEN")
    if not admin:
        _err(cmd, "give --admin-token or set BGSCRIBE_ADMIN_TOKEN (the server's staff token)")
        return EXIT_USAGE
    if not 1 <= args.board <= 999:
        _err(cmd, "--board must be 1-999")
        return EXIT_USAGE
    if not args.server.startswith(("http://", "https://")):
        _err(cmd, f"--server must be an http:// or https:// address, not {args.server!r}")
        return EXIT_USAGE
    out = Path(args.out or f"capture-{args.board}.env")
    if out.exists() and not args.force:
        _err(cmd, f"{out} exists; --force to replace it (the board gets a new token either way)")
        return EXIT_USAGE
    try:
        token = register_board(args.server, admin, args.board, args.event_id, verify=server_verify(args.server, args))
    except (PermissionError, LookupError, RuntimeError) as e:
        _err(cmd, str(e))
        return EXIT_FAIL
    except ValueError as e:
        _err(cmd, str(e))
        return EXIT_USAGE
    except (httpx.HTTPError, OSError) as e:
        _err(cmd, f"cannot reach {args.server}: {e}")
        return EXIT_FAIL
    pin = args.server_fingerprint or os.environ.get("BGSCRIBE_SERVER_FINGERPRINT")
    try:
        write_env_file(out, args.board, args.source, args.agent_server or args.server, token, pin)
    except OSError as e:
        _err(cmd, f"board {args.board} registered, but {out} could not be written ({e}); run again with a "
                  "writable --out (a new token replaces this one)")
        return EXIT_FAIL
    print(f"board {args.board} registered with {args.server}; its settings and token are in {out} (mode 600)")
    print("on the board's agent:")
    print(f"  sudo install -m 600 {out} /etc/bgscribe/capture-{args.board}.env")
    print(f"  sudo systemctl enable --now bgscribe-capture@{args.board}")
    print(f"  bgscribe check-camera --board {args.board}")
    return EXIT_OK
