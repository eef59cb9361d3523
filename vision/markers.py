"""A printable sheet of fiducial markers for the board's corners, and finding them in a frame.

Four ArUco markers (OpenCV's 4x4_50 dictionary, ids 0-3), one per corner of the board as the camera
sees it: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left. Stuck on the table just outside the
board's frame, they tell the set-up check (and the staff) at a glance that the camera sees every
corner; the calibration itself needs no markers (where they are in view when a person confirms the field,
they anchor it against bumps: `vision.follow`). The sheet carries a 100 mm scale bar: print at
100 % ("actual size") and measure it.

Output: PNG (any DPI), or a one-page PDF (the same picture, written without extra libraries).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np

DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def _dictionary():
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def sheet(dpi: int = 300, paper: str = "a4", marker_mm: float = 50.0) -> np.ndarray:
    """The sheet as a grayscale image (white paper, black markers, cut lines, labels, scale bar)."""
    if paper not in PAPER_MM:
        raise ValueError(f"paper must be one of {', '.join(PAPER_MM)}, not {paper!r}")
    if not 72 <= dpi <= 1200:
        raise ValueError("dpi must be between 72 and 1200")
    if not 20 <= marker_mm <= 80:
        raise ValueError("markers must be 20 to 80 mm wide to fit four on a page and be seen by the camera")
    pw, ph = PAPER_MM[paper]

    def px(mm: float) -> int:
        return int(round(mm * dpi / 25.4))

    img = np.full((px(ph), px(pw)), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    small = dpi / 300 * 0.9
    thick = max(1, dpi // 150)

    def text(s: str, x_mm: float, y_mm: float, scale: float = 1.0) -> None:
        cv2.putText(img, s, (px(x_mm), px(y_mm)), font, small * scale, 0, thick, cv2.LINE_AA)

    text("bgscribe board corner markers (ArUco 4x4_50, ids 0-3)", 15, 18, 1.25)
    text("Print at 100 % (actual size) on matt paper and check the scale bar. Cut along the dashed lines.", 15, 27)
    text("Stick each marker flat on the table just outside that corner of the board, as the camera sees it.", 15, 34)
    cell = marker_mm + 20.0
    x0 = (pw - 2 * cell) / 2
    y0 = 45.0
    dictionary = _dictionary()
    for k, name in enumerate(CORNER_NAMES):
        col, row = (0, 1, 1, 0)[k], (0, 0, 1, 1)[k]
        cx, cy = x0 + col * cell, y0 + row * (cell + 12)
        _dashed_rect(img, px(cx), px(cy), px(cx + cell), px(cy + cell + 8), max(2, thick))
        side = px(marker_mm)
        marker = cv2.aruco.generateImageMarker(dictionary, k, side)
        mx, my = px(cx + 10), px(cy + 6)
        img[my:my + side, mx:mx + side] = marker
        text(f"{k}: {name} corner", cx + 10, cy + marker_mm + 13)
    # scale bar: 100 mm with 10 mm ticks
    by = y0 + 2 * (cell + 12) + 14
    bx = (pw - 100) / 2
    cv2.rectangle(img, (px(bx), px(by)), (px(bx + 100), px(by + 3)), 0, -1)
    for t in range(11):
        cv2.line(img, (px(bx + 10 * t), px(by - 3)), (px(bx + 10 * t), px(by + 3)), 0, thick)
    text("100 mm - if this bar is not 100 mm long, the print was scaled", bx - 5, by + 12)
    return img


def _dashed_rect(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, t: int, dash: int = 24) -> None:
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = int(np.hypot(b[0] - a[0], b[1] - a[1]))
        for s in range(0, length, 2 * dash):
            e = min(s + dash, length)
            p = (int(a[0] + (b[0] - a[0]) * s / length), int(a[1] + (b[1] - a[1]) * s / length))
            q = (int(a[0] + (b[0] - a[0]) * e / length), int(a[1] + (b[1] - a[1]) * e / length))
            cv2.line(img, p, q, 160, t)


def write_sheet(path: str | Path, dpi: int = 300, paper: str = "a4", marker_mm: float = 50.0) -> Path:
    """Write the sheet as .png or .pdf (by the file's extension)."""
    path = Path(path)
    img = sheet(dpi, paper, marker_mm)
    ext = path.suffix.lower()
    if ext == ".png":
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 9, cv2.IMWRITE_PNG_BILEVEL, 0])
        if not ok:
            raise OSError("PNG encoding failed")
        data = buf.tobytes()
    elif ext == ".pdf":
        data = pdf_page(img, PAPER_MM[paper])
    else:
        raise ValueError(f"write .png or .pdf, not {path.name!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def pdf_page(gray: np.ndarray, paper_mm: tuple[float, float]) -> bytes:
    """A one-page PDF showing a grayscale image across the whole page (Flate-compressed image XObject)."""
    h, w = gray.shape
    pw, ph = (round(v / 25.4 * 72, 2) for v in paper_mm)
    image = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    content = f"q {pw} 0 0 {ph} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw} {ph}] /Resources << /XObject << /Im0 4 0 R >> >> "
        f"/Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 "
        f"/Filter /FlateDecode /Length {len(image)} >>\nstream\n".encode() + image + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def find_marker_corners(image: np.ndarray) -> dict[int, np.ndarray]:
    """The sheet's markers visible in a frame: id -> the marker's four corners (4, 2) in pixels."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners) if 0 <= int(i) < 4}


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The sheet's markers visible in a frame: id -> the marker's centre (x, y) in pixels."""
    return {k: c.mean(0) for k, c in find_marker_corners(image).items()}
