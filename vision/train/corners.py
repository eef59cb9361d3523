"""Train the board-corner locator: a small heat-map network over a 256x144 frame.

    bgscribe train corners [--out models/] [--images 2400] [--epochs 14]

Data: frames rendered by the simulator (all three profiles, four of the five named colour
schemes and as many boards again in random looks, random positions, dice, cube, hands and
bumps); the held-out scheme (`grey_modern`) and seeds from 10_000 up are kept for evaluation
only. The split is the readers' (`vision.train.readers_data`).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from ..calibrate import IN_H, IN_W, OUT_H, OUT_W
from ..synth.rig import Rig
from ..synth.stills import random_positions, random_scene
from .readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, TRAIN_SCHEMES

PER_RIG = 6


def corner_samples(n: int, seed: int, schemes: list[str], profiles=("clean", "standard", "standard", "hard"),
                   size=(640, 360), progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``n`` frames at the locator's input size and their corners (normalised 0..1, TL TR BR BL)."""
    rng = np.random.default_rng([seed, 7])
    positions = random_positions(rng, n)
    imgs = np.zeros((n, IN_H, IN_W, 3), np.uint8)
    corners = np.zeros((n, 4, 2), np.float32)
    rig = None
    for i in range(n):
        if i % PER_RIG == 0:
            prof = profiles[(i // PER_RIG) % len(profiles)]
            rig = Rig.build(prof, seed * 1000 + i // PER_RIG, size, schemes=schemes)
        scene = random_scene(rng, rig, positions[i])
        if rng.random() < 0.5:  # bumps and offsets beyond the stills' small jitter
            scene = scene.with_(shift=(float(rng.normal(0, 12)), float(rng.normal(0, 8)), float(rng.normal(0, 2.5))))
        lit, _ = rig.camera_image(scene)
        frame = rig.sensor.expose(lit, float(rng.uniform(0, 300)), i)
        imgs[i] = cv2.resize(frame, (IN_W, IN_H), interpolation=cv2.INTER_AREA)
        corners[i] = rig.corners(scene.shift) / np.array(size, np.float32)
        if progress and i % 100 == 0:
            sys.stderr.write(f"\rrendering training frames {i}/{n}")
    if progress:
        sys.stderr.write("\n")
    return imgs, corners


def build_model():
    import torch
    from torch import nn

    def conv(a, b, stride):
        return [nn.Conv2d(a, b, 3, stride, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    def block(a, b, stride, n=2):
        return nn.Sequential(*conv(a, b, stride), *(conv(b, b, 1) if n > 1 else []))

    class CornerNet(nn.Module):
        def __init__(self):
            super().__init__()
            # the full-resolution stages are single convolutions: they dominate the cost on a CPU
            self.e1, self.e2 = block(3, 12, 2, 1), block(12, 24, 2)
            self.e3, self.e4 = block(24, 48, 2), block(48, 64, 2)
            self.d3, self.d2, self.d1 = block(64 + 48, 48, 1), block(48 + 24, 24, 1), block(24 + 12, 16, 1, 1)
            self.head = nn.Conv2d(16, 4, 1)

        def forward(self, x):
            up = nn.functional.interpolate
            e1 = self.e1(x)  # 1/2: 72x128
            e2 = self.e2(e1)
            e3 = self.e3(e2)
            e4 = self.e4(e3)
            d3 = self.d3(torch.cat([up(e4, size=e3.shape[2:], mode="bilinear", align_corners=False), e3], 1))
            d2 = self.d2(torch.cat([up(d3, size=e2.shape[2:], mode="bilinear", align_corners=False), e2], 1))
            d1 = self.d1(torch.cat([up(d2, size=e1.shape[2:], mode="bilinear", align_corners=False), e1], 1))
            return self.head(d1)  # (N, 4, OUT_H, OUT_W) logits

    return CornerNet()


def _targets(corners: np.ndarray, sigma: float = 1.2) -> np.ndarray:
    """Gaussian target distributions over the output grid, one per corner."""
    yy, xx = np.mgrid[0:OUT_H, 0:OUT_W].astype(np.float32)
    cx = corners[..., 0] * OUT_W - 0.5
    cy = corners[..., 1] * OUT_H - 0.5
    g = np.exp(-((xx[None, None] - cx[..., None, None]) ** 2 + (yy[None, None] - cy[..., None, None]) ** 2)
               / (2 * sigma**2))
    g /= g.sum(axis=(2, 3), keepdims=True) + 1e-9
    return g.astype(np.float32)


def train(out_dir: Path, images: int = 3000, epochs: int = 30, seed: int = 0, minutes: float | None = None) -> dict:
    import torch

    torch.manual_seed(seed)
    t0 = time.time()
    x, c = corner_samples(images, seed, TRAIN_SCHEMES, progress=True)
    xe, ce = corner_samples(max(200, images // 10), EVAL_SEED0 + seed, HELD_OUT_SCHEMES, progress=True)
    gen_s = time.time() - t0
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * ((images + 31) // 32))
    xt = torch.from_numpy(x).permute(0, 3, 1, 2)
    tt = torch.from_numpy(_targets(c))
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(images)
        total = 0.0
        for k in range(0, images, 32):
            idx = order[k:k + 32]
            xb = xt[idx].float() / 255.0
            xb = _jitter(xb, rng)
            logits = model(xb)
            logp = torch.log_softmax(logits.flatten(2), -1)
            loss = -(tt[idx].flatten(2) * logp).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        err = evaluate(model, xe, ce)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / images:.3f}, held-out median corner error "
              f"{err['median_px_720p']:.2f} px (720p), p95 {err['p95_px_720p']:.2f}", file=sys.stderr)
        if minutes is not None and time.time() - t0 > minutes * 60:
            break
    metrics = evaluate(model, xe, ce)
    metrics.update({"train_images": images, "eval_images": len(xe), "epochs": epoch + 1,
                    "data_s": round(gen_s), "train_s": round(time.time() - t0 - gen_s)})
    export(model, out_dir / "corners.onnx")
    (out_dir / "corners.metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _jitter(xb, rng: np.random.Generator):
    """Photometric jitter of a batch (N, 3, H, W, 0..1): the model must not learn one exposure, nor one
    board's colours (channels swapped, grey, per-channel gains)."""
    import torch

    if rng.random() < 0.5:
        xb = xb[:, list(rng.permutation(3))]
    if rng.random() < 0.1:
        xb = xb.mean(1, keepdim=True).expand_as(xb)
    gains = np.array(rng.uniform(0.8, 1.2, 3) * rng.uniform(0.7, 1.3), np.float32)
    xb = xb * torch.from_numpy(gains)[None, :, None, None] + float(rng.uniform(-0.1, 0.1))
    return xb.clamp(0, 1)


def add_arguments(p) -> None:
    p.add_argument("--images", type=int, default=2400, help="training frames to render (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=14, help="passes over them (default: %(default)s)")


def run(args) -> int:
    import torch

    torch.set_num_threads(max(1, torch.get_num_threads()))
    metrics = train(Path(args.out), images=args.images, epochs=args.epochs, seed=args.seed, minutes=args.minutes)
    print(json.dumps(metrics, indent=2))
    return 0


def evaluate(model, x: np.ndarray, c: np.ndarray) -> dict:
    import torch

    from ..calibrate import heatmap_peaks

    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255.0).numpy()
    errs = []
    for k in range(len(x)):
        pts, _ = heatmap_peaks(logits[k])
        errs.append(np.linalg.norm((pts - c[k]) * [1280, 720], axis=1))
    e = np.concatenate(errs)
    return {"median_px_720p": float(np.median(e)), "p95_px_720p": float(np.percentile(e, 95)),
            "max_px_720p": float(e.max())}


def export(model, path: Path) -> None:
    import torch

    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, torch.zeros(1, 3, IN_H, IN_W), str(path), input_names=["image"],
                      output_names=["heatmaps"], dynamic_axes={"image": {0: "n"}, "heatmaps": {0: "n"}},
                      opset_version=17, dynamo=False)
