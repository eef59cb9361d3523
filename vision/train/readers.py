"""Train the board readers (`vision.readers`): six small CNNs, exported to ONNX with model cards.

    bgscribe train readers [--out models/] [--minutes 75] [--frames 5000] [--seed 0] [--only dice ...]
                           [--real-dice PATH] [--threads 2]

1. Render ``--frames`` training frames (schemes `TRAIN_SCHEMES`, profiles clean/standard/hard,
   random corner noise and JPEG quality; see `vision.train.readers_data`), plus calibration
   frames (same schemes, other rig seeds) and held-out evaluation frames (`HELD_OUT_SCHEMES`,
   rig seeds from `EVAL_SEED0`), on all cores.
2. Train each model for its share of ``--minutes`` (cosine learning rate over the time budget),
   with colour augmentation (channel shuffles, gains, grey, noise) so that the readers judge
   brightness and shape, not one board's colours.
   With ``--real-dice PATH`` (Rune55: `vision.train.real_dice`) the dice classifier also trains on
   real dice photos, half of each batch real, half rendered (``--real-masters``: the real dice cut afresh
   in every batch from one master each, `vision.train.dice_aug`). ``--device cuda`` trains on a GPU (the same
   recipe; ``--batch-scale`` for its larger batches).
3. Fit one temperature per output head on the calibration frames, export ONNX (temperature in
   the metadata), then measure the exported models through `vision.readers` on the held-out
   frames and write `models/<name>.md` (data, the exact command, metrics) for each model.

torch is imported here only; running the readers needs onnxruntime alone.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

from ..observation import MAX_COUNT
from ..readers import BAR_PILE, CUBE_CROP, DIE_CROP, N_POINT_CLASSES, NAMES
from ..rectify import BAR_CROP
from ..synth.style import RANDOM
from .readers_data import (
    CALIB_SEED0,
    EVAL_SEED0,
    HELD_OUT_SCHEMES,
    PRINTED_BARS,
    TRAIN_PROFILES,
    TRAIN_SCHEMES,
    TRAIN_SHAPED,
    examples,
    frames,
    heat_target,
    train_rig_seed,
)
from .real_dice import MASTER_PX_RANGE

PER_RIG = 8
SHARES = {"points": 0.40, "bar": 0.08, "tray": 0.08, "dice_heat": 0.20, "dice": 0.16, "cube": 0.08}
HEAT_FRAMES = 4000  # frames whose half-resolution board the heat-map trains on (memory: 0.55 MB each)
DATA_VERSION = 16  # part of the cache's key: 2 = half the boards in random looks, 3 = dice of 12-25 mm,
# 4 = dice of 13-19.5 mm and checkers shrunk to a die's size as negatives (read at a board's own dice size),
# 5 = half the boards of a shape of their own, rectified as the observer does; wooden looks; lines of 6-7 checkers,
# 6 = makers' prints on the field between the rows, 7 = busy bars (loud grain, stripes, hinges),
# 8 = dice cups left on the field, 9 = marks on the checkers (dots, rings, logos), 10 = dice drawn as cubes (their side
# faces towards the camera), half of those translucent, 11 = no cube on a bar narrower than
# `geometry.CUBE_BAR_MIN_MM` (a hinge: off the board) and, where the cube is not in the bar's middle, half the bars'
# checkers from the middle, 12 = the cube in a tray or on the frame at either end on `TRAIN_CUBE_ENDS` of the boards
# (of its own size, any way round), and cube windows over those ends, 13 = cubes of their own make (dark bodies,
# numbers on a disc, other typefaces: `style.CubeLook`), score flip cards against the board's ends (`style.EndCards`),
# the cube set aside below the board's near edge (clear of the ends), 14 = every face alike off the bar, 15 = the
# bar's crop at least `rectify.BAR_CROP_CHECKERS` checkers wide, 16 = checkers on the bar laid as real players leave
# them on `TRAIN_BAR_FREE` of such boards (`readers_data.bar_layout`), and the bar's target a map of them along it;
# boards of a shape of their own include printed boards' middle lines for a bar (`readers_data.PRINTED_BARS`)
TRAIN_BAR_FREE = 0.6  # of boards with checkers on the bar, the share with them laid freely (either colour anywhere)
TRAIN_CUBE_ENDS = 0.3  # the share of rendered boards whose cube lies off the bar, in a tray or on the frame
END_NEGATIVES = 3  # cube windows with no cube cut per frame from the strips beyond the field's ends
BATCH = {"points": 96, "bar": 48, "tray": 64, "dice": 96, "cube": 96, "dice_heat": 24}  # times --batch-scale
DICE_CHANNELS = (16, 32, 32, 64, 64)  # the dice classifier's conv layers (--dice-channels: e.g. 24 48 48 96 96)
HEAT_PATCH = 128  # half-resolution px: the heat-map trains on patches (it is fully convolutional)


# ---------------------------------------------------------------------- data


def _gen_chunk(job: tuple) -> dict[str, np.ndarray]:
    import cv2

    cv2.setNumThreads(1)
    schemes, rig_seeds, per_rig, seed, profiles, heat, noise, shaped, kw = job
    rng = np.random.default_rng([seed, 3])
    acc: dict[str, list] = {}
    for f in frames(schemes, rig_seeds, per_rig, seed, profiles=profiles, corner_noise=noise, shaped=shaped,
                    cube_ends=TRAIN_CUBE_ENDS, bar_free=TRAIN_BAR_FREE):
        for k, v in examples(f, rng, with_heat=heat, end_negatives=END_NEGATIVES, **kw).items():
            acc.setdefault(k, []).extend(v)
    out = {}
    for k, v in acc.items():
        if k == "heat_pts":
            out[k] = v  # ragged
        elif v:
            out[k] = np.stack([np.asarray(a) for a in v])
    return out


def generate(n_frames: int, schemes: list[str], rig_seed, seed: int, profiles=TRAIN_PROFILES, heat_frames: int = 0,
             noise=(0.0, 3.0), workers: int = 2, label: str = "frames", shaped: float = TRAIN_SHAPED,
             **kw) -> dict[str, np.ndarray]:
    """Examples from ``n_frames`` frames, rendered ``PER_RIG`` per rig on ``workers`` processes (``shaped``: the
    share of boards of their own shape, `readers_data.frames`)."""
    n_rigs = max(1, math.ceil(n_frames / PER_RIG))
    jobs = []
    for k in range(n_rigs):
        jobs.append((schemes, [rig_seed(k)], PER_RIG, seed * 1_000_003 + k, [profiles[k % len(profiles)]],
                     k * PER_RIG < heat_frames, noise, shaped, kw))
    parts = []
    t0 = time.time()
    with mp.get_context("fork").Pool(workers) as pool:
        for i, part in enumerate(pool.imap(_gen_chunk, jobs)):
            parts.append(part)
            if i % 10 == 0 or i == n_rigs - 1:
                sys.stderr.write(f"\r{label}: {(i + 1) * PER_RIG}/{n_rigs * PER_RIG} rendered "
                                 f"({time.time() - t0:.0f} s)")
    sys.stderr.write("\n")
    out: dict = {}
    for k in parts[0].keys() | {k for p in parts for k in p}:
        vals = [p[k] for p in parts if k in p]
        out[k] = [a for v in vals for a in v] if k == "heat_pts" else np.concatenate(vals)
    return out


# ---------------------------------------------------------------------- models


def build(name: str, dice_channels=DICE_CHANNELS):
    import torch
    from torch import nn

    class Norm(nn.Module):
        def forward(self, x):
            return (x - 127.5) / 64.0

    def cbr(a, b, s=1, d=1):
        return nn.Sequential(nn.Conv2d(a, b, 3, s, d, dilation=d, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True))

    class Classifier(nn.Module):
        """Conv trunk, flattened (position matters: counting is where checkers end), heads. ``pool``: the
        trunk's features averaged over the crop beside them (where a die's pips lie varies with its turn,
        size and place in the crop, which one flattened layer learns slowly: a sum of pip detectors does not)."""

        def __init__(self, chans, strides, in_hw, heads, pool: bool = False):
            super().__init__()
            self.pool = pool
            layers, a = [Norm()], 3
            for b, s in zip(chans, strides):
                layers.append(cbr(a, b, s))
                a = b
            self.trunk = nn.Sequential(*layers)
            with torch.no_grad():
                n = self.trunk(torch.zeros(1, 3, *in_hw)).numel()
            self.fc = nn.Sequential(nn.Flatten(), nn.Linear(n, 128), nn.ReLU(inplace=True), nn.Dropout(0.1))
            self.heads = nn.ModuleList(nn.Linear(128 + (a if pool else 0), h) for h in heads)

        def forward(self, x):
            t = self.trunk(x)
            z = torch.cat([self.fc(t), t.mean((2, 3))], 1) if self.pool else self.fc(t)
            outs = [h(z) for h in self.heads]
            return outs[0] if len(outs) == 1 else tuple(outs)

    class BarLine(nn.Module):
        """The bar's crop -> a map along it (`readers.read_bar`): per cell of BAR_CELL rows, the logits of 0 ..
        BAR_PILE checkers centred in it and of their being light, (N, BAR_PILE + 2, BAR_CELLS). The crop's width
        is folded away after the trunk; dilated convolutions along the bar give each cell its neighbours (a
        checker is 4 cells long, a cube beside it is not one)."""

        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(Norm(), cbr(3, 16, 2), cbr(16, 32, 2), cbr(32, 32), cbr(32, 48, 2), cbr(48, 64),
                                       cbr(64, 64, d=2))
            w = BAR_CROP[0] // 8
            self.line = nn.Sequential(
                nn.Conv2d(64, 96, (3, w), padding=(1, 0), bias=False), nn.BatchNorm2d(96), nn.ReLU(inplace=True),
                nn.Conv2d(96, 96, (3, 1), padding=(2, 0), dilation=(2, 1), bias=False), nn.BatchNorm2d(96),
                nn.ReLU(inplace=True), nn.Conv2d(96, BAR_PILE + 2, 1))
            self.line[-1].bias.data[0] = 4.0  # most cells hold no checker's centre

        def forward(self, x):
            return self.line(self.trunk(x))[..., 0]

    class Heat(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(Norm(), cbr(3, 12, 2), cbr(12, 24, 2), cbr(24, 24), cbr(24, 24, d=2),
                                     cbr(24, 24, d=4), nn.Conv2d(24, 1, 1))
            self.net[-1].bias.data.fill_(-4.0)

        def forward(self, x):
            return self.net(x)

    if name == "points":
        return Classifier([16, 32, 48, 48, 64], [2, 2, 2, 1, 2], (192, 48), [N_POINT_CLASSES])
    if name == "bar":
        return BarLine()
    if name == "tray":
        return Classifier([16, 32, 32, 48, 64], [2, 1, 2, 1, 2], (160, 40), [MAX_COUNT + 1, MAX_COUNT + 1])
    if name == "dice":
        return Classifier(list(dice_channels), [1, 2, 1, 2, 2], (DIE_CROP, DIE_CROP), [7, 4], pool=True)
    if name == "cube":
        return Classifier([16, 32, 48, 48, 64], [2, 1, 2, 1, 2], (CUBE_CROP, CUBE_CROP), [7])
    if name == "dice_heat":
        return Heat()
    raise KeyError(name)


def augment(x, g, nhwc: bool = True):
    """Colour augmentation of a uint8 NHWC batch (or, ``nhwc`` False, a float NCHW one) -> float NCHW 0..255
    (torch, on the batch's device; ``g`` a generator there)."""
    import torch

    x = x.permute(0, 3, 1, 2).float() if nhwc else x.float()
    n, dev = x.shape[0], x.device

    def rand(*shape):
        return torch.rand(*shape, generator=g, device=dev)

    perm = torch.argsort(rand(n, 3), 1)
    shuffle = rand(n) < 0.5
    idx = torch.where(shuffle[:, None], perm, torch.arange(3, device=dev)[None].expand(n, 3))
    x = torch.gather(x, 1, idx[:, :, None, None].expand_as(x))
    grey = rand(n) < 0.1
    x = torch.where(grey[:, None, None, None], x.mean(1, keepdim=True).expand_as(x), x)
    gain = 0.7 + 0.6 * rand(n, 1, 1, 1)
    chan = 0.85 + 0.3 * rand(n, 3, 1, 1)
    bias = -25 + 50 * rand(n, 1, 1, 1)
    x = x * gain * chan + bias
    contrast = 0.75 + 0.5 * rand(n, 1, 1, 1)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    x = x + torch.randn(x.shape, generator=g, device=dev) * (6 * rand(n, 1, 1, 1))
    return x.clamp(0, 255)


# ---------------------------------------------------------------------- training


def _cosine_lr(opt, base: float, frac: float) -> None:
    lr = base * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))) if frac > 0.03 else \
        base * max(frac / 0.03, 0.05)
    for group in opt.param_groups:
        group["lr"] = lr


def train_model(name: str, data: dict, seconds: float, seed: int, log, real: dict | None = None,
                real_share: float = 0.5, probe=None, device: str = "cpu", batch_scale: int = 1,
                init: Path | None = None, lr: float | None = None, masters: dict | None = None,
                dice_channels=DICE_CHANNELS) -> tuple[object, dict]:
    """Train one model for ``seconds`` on ``device``; returns the model (on the CPU) and a summary. ``real``: more
    examples of the same arrays (the dice classifier's real dice, `real_dice.real_dice_examples`), or ``masters``:
    real dice cut afresh in every batch (`real_dice.real_dice_masters`, `dice_aug.RealDice`), drawn for
    ``real_share`` of every batch. ``probe(model)``: a line for the log every 2000 steps (the held-out real dice,
    to see the run learn). ``batch_scale``: batches this many times larger, the learning rate by its root.
    ``init``: start from these weights (a state dict of the same model, ``<name>.pt``); ``lr``: the peak
    learning rate (default 2e-3 times the root of ``batch_scale``)."""
    import torch
    from torch.nn import functional as F

    torch.manual_seed(seed)
    dev = torch.device(device)
    g = torch.Generator(device=dev).manual_seed(seed)
    model = build(name, dice_channels)
    if init is not None:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    model = model.to(dev)
    base_lr = lr if lr is not None else 2e-3 * math.sqrt(batch_scale)
    opt = torch.optim.AdamW(model.parameters(), lr=base_lr, weight_decay=1e-4)
    rng = np.random.default_rng(seed)
    bs = BATCH[name] * batch_scale
    steps, seen, ema = 0, 0, None
    x_np, y_np, aux_np = _arrays(name, data)
    n_rendered = len(x_np)
    if real is not None:  # one array; indices from n_rendered on are real
        x_np, y_np, aux_np = (np.concatenate([a, b]) for a, b in zip((x_np, y_np, aux_np), _arrays(name, real)))
    n = len(x_np)
    cut = None
    if masters is not None:
        from .dice_aug import RealDice

        cut = RealDice(masters, dev)
    if name != "dice_heat":  # the examples on the device (on the CPU: the same memory)
        x_all = torch.from_numpy(x_np).to(dev)
        y_all = torch.from_numpy(np.asarray(y_np)).to(dev)
        aux_all = torch.from_numpy(aux_np).float().to(dev) if aux_np is not None else None
    flip_ok = name in ("points", "bar", "tray")
    k_real = int(round(bs * real_share)) if cut is not None else 0
    t0 = time.time()
    while True:
        frac = (time.time() - t0) / seconds
        if frac >= 1.0:
            break
        _cosine_lr(opt, base_lr, frac)
        model.train()
        if name == "dice_heat":
            xb, tb = _heat_batch(data, bs, rng)
            xb = augment(torch.from_numpy(xb).to(dev), g)
            out = model(xb)[:, 0]
            loss = _focal(out, torch.from_numpy(tb).to(dev))
        else:
            idx = torch.randint(0, n, (bs - k_real,), generator=g, device=dev)
            if real is not None:  # rendered (every look, cocked dice) and real
                k = bs - int(round(bs * real_share))
                idx[:k] = torch.randint(0, n_rendered, (k,), generator=g, device=dev)
                idx[k:] = torch.randint(n_rendered, n, (bs - k,), generator=g, device=dev)
            xb = x_all[idx]
            yb = y_all[idx].long()
            if flip_ok:  # a slot mirrored left-right holds the same checkers
                flip = torch.rand(len(idx), generator=g, device=dev) < 0.5
                xb[flip] = xb[flip].flip(2)
            if name == "bar":  # and the bar turned end over end, its map with it
                flip = torch.rand(len(idx), generator=g, device=dev) < 0.5
                xb[flip], yb[flip] = xb[flip].flip(1), yb[flip].flip(1)
            xb = augment(xb, g)
            ab = aux_all[idx] if aux_all is not None else None
            if cut is not None:  # rendered (every look, cocked dice) and real, cut afresh
                xr, yr, ar = cut.batch(k_real, g)
                xb = torch.cat([xb, augment(xr, g, nhwc=False)])
                yb = torch.cat([yb, yr])
                ab = torch.cat([ab, ar])
            out = model(xb)
            if name == "bar":
                loss = _bar_loss(out, yb)
            elif name == "tray":
                loss = F.cross_entropy(out[0], yb[:, 0]) + F.cross_entropy(out[1], yb[:, 1])
            elif name == "dice":
                logits, aux = out
                is_die = (yb > 0).float()
                loss = F.cross_entropy(logits, yb)
                bce = F.binary_cross_entropy_with_logits(aux[:, :2], ab[:, :2], reduction="none").sum(1)
                reg = F.smooth_l1_loss(aux[:, 2:], ab[:, 2:], reduction="none", beta=0.05).sum(1) * 4
                loss = loss + ((bce + reg) * is_die).sum() / is_die.sum().clamp(min=1)
            else:
                loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        seen += bs
        if steps % 50 == 0 or steps < 50:
            ema = loss.item() if ema is None else 0.9 * ema + 0.1 * loss.item()
        if steps % 1000 == 0:
            log(f"{name}: step {steps}, {seen / max(n, 1):.1f} epochs, loss {ema:.4f}, "
                f"{time.time() - t0:.0f}/{seconds:.0f} s")
        if probe is not None and steps % 2000 == 0:
            model.eval()
            log(f"{name}: step {steps}, {probe(model)}")
    model.eval()
    model.cpu()
    summary = {"steps": steps, "examples_seen": seen, "train_examples": int(n), "batch": bs,
               "seconds": round(time.time() - t0), "device": str(dev), "lr": base_lr} | \
        ({"init": str(init)} if init is not None else {})
    if real is not None:
        summary["real_examples"] = int(n - n_rendered)
    if cut is not None:
        summary |= {"real_masters": cut.n, "real_seen": steps * k_real}
    if tuple(dice_channels) != DICE_CHANNELS and name == "dice":
        summary["dice_channels"] = list(dice_channels)
    return model, summary


def _arrays(name: str, data: dict):
    if name == "points":
        return data["pt_x"], data["pt_y"], None
    if name == "bar":
        return data["bar_x"], data["bar_y"], None
    if name == "tray":
        return data["tray_x"], data["tray_y"], None
    if name == "dice":
        return data["die_x"], data["die_y"], data["die_aux"]
    if name == "cube":
        return data["cube_x"], data["cube_y"], None
    return data["heat_x"], None, None


def _heat_batch(data: dict, bs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Patches of half-resolution boards (mostly around dice) and their heat targets."""
    xs, pts = data["heat_x"], data["heat_pts"]
    n, h, w = xs.shape[:3]
    P, S = HEAT_PATCH, 4
    xb = np.empty((bs, P, P, 3), np.uint8)
    tb = np.empty((bs, P // S, P // S), np.float32)
    for b in range(bs):
        k = int(rng.integers(n))
        p = pts[k]
        if len(p) and rng.random() < 0.7:
            cx, cy = p[int(rng.integers(len(p)))] / 2.0  # full-res px -> half-res px
            x0, y0 = cx - rng.uniform(16, P - 16), cy - rng.uniform(16, P - 16)
        else:
            x0, y0 = rng.uniform(0, w - P), rng.uniform(0, h - P)
        x0 = int(np.clip(x0, 0, w - P)) // S * S
        y0 = int(np.clip(y0, 0, h - P)) // S * S
        xb[b] = xs[k, y0:y0 + P, x0:x0 + P]
        shifted = p - np.array([2 * x0, 2 * y0], np.float32)
        tb[b] = heat_target(shifted, (P // S, P // S))
    return xb, tb


def _bar_loss(out, y):
    """The bar's map: cross-entropy of each cell's count, and of the colour where a checker is centred."""
    import torch.nn.functional as F

    counts, colour = out[:, :BAR_PILE + 1], out[:, BAR_PILE + 1]
    loss = F.cross_entropy(counts, y[..., 0])
    held = y[..., 1] >= 0
    if held.any():
        loss = loss + F.binary_cross_entropy_with_logits(colour[held], y[..., 1][held].float())
    return loss


def _focal(logits, target):
    """CenterNet's focal loss on a Gaussian target (peak cells are the positives)."""
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (target > 0.95).float()
    pos_loss = -((1 - p) ** 2) * torch.log(p) * pos
    neg_loss = -((1 - target) ** 4) * (p**2) * torch.log(1 - p) * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


# ---------------------------------------------------------------------- calibration, export


def _logits(model, x: np.ndarray, bs: int = 256) -> list[np.ndarray]:
    import torch

    outs: list[list[np.ndarray]] = []
    with torch.no_grad():
        for k in range(0, len(x), bs):
            o = model(torch.from_numpy(x[k:k + bs]).permute(0, 3, 1, 2).float())
            o = o if isinstance(o, tuple) else (o,)
            outs.append([t.numpy() for t in o])
    return [np.concatenate([o[h] for o in outs]) for h in range(len(outs[0]))]


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood (golden-section search on log T)."""

    def nll(log_t: float) -> float:
        z = logits / math.exp(log_t)
        z = z - z.max(1, keepdims=True)
        lp = z - np.log(np.exp(z).sum(1, keepdims=True))
        return float(-lp[np.arange(len(y)), y].mean())

    a, b = math.log(0.1), math.log(10.0)
    gr = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        c, d = b - gr * (b - a), a + gr * (b - a)
        if nll(c) < nll(d):
            b = d
        else:
            a = c
    return round(math.exp((a + b) / 2), 4)


def temperatures(name: str, model, calib: dict) -> list[float]:
    if name == "dice_heat":
        return [1.0]
    x, y, _ = _arrays(name, calib)
    out = _logits(model, x)
    if name == "bar":  # every cell of the map
        counts = out[0][:, :BAR_PILE + 1].transpose(0, 2, 1).reshape(-1, BAR_PILE + 1)
        return [fit_temperature(counts, y[..., 0].reshape(-1).astype(np.int64))]
    if name == "tray":
        return [fit_temperature(out[0], y[:, 0]), fit_temperature(out[1], y[:, 1])]
    return [fit_temperature(out[0], y)]


def export(name: str, model, path: Path, temps: list[float], card: dict) -> None:
    import onnx
    import torch

    shapes = {"points": (192, 48), "bar": (320, 40), "tray": (160, 40), "dice": (DIE_CROP, DIE_CROP),
              "cube": (CUBE_CROP, CUBE_CROP), "dice_heat": (360, 513)}
    outs = {"bar": ["cells"], "tray": ["light", "dark"], "dice": ["value", "aux"],
            "dice_heat": ["heat"]}.get(name, ["logits"])
    path.parent.mkdir(parents=True, exist_ok=True)
    dyn = {"image": {0: "n"}} | {o: {0: "n"} for o in outs}
    if name == "dice_heat":
        dyn = {"image": {0: "n", 2: "h", 3: "w"}, "heat": {0: "n", 2: "hh", 3: "ww"}}
    torch.onnx.export(model, torch.zeros(1, 3, *shapes[name]), str(path), input_names=["image"], output_names=outs,
                      dynamic_axes=dyn, opset_version=17, dynamo=False)
    m = onnx.load(str(path))
    for k, v in {"temperature": json.dumps(temps), "recipe": card["command"],
                 "data": json.dumps(card["data"])}.items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    if name == "points":
        add_features_output(m)
    onnx.save(m, str(path))


def add_features_output(m) -> None:
    """Expose the points classifier's last hidden layer as a second output, ``features`` (N, 128): the head
    a board is adapted with (vision/adapt.py) is fitted on it, at run time, without torch."""
    import onnx

    if any(o.name == "features" for o in m.graph.output):
        return
    last = next(n for n in reversed(m.graph.node) if "logits" in n.output)
    m.graph.node.append(onnx.helper.make_node("Identity", [last.input[0]], ["features"]))
    m.graph.output.append(onnx.helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT, ["n", None]))


# ---------------------------------------------------------------------- the recipe


def _cached(cache: Path | None, key: str, make) -> dict:
    """Rendered examples, kept in ``cache`` (when given) so that a rerun skips rendering."""
    if cache is None:
        return make()
    d = cache / key
    if (d / "done").exists():
        out = {p.stem: np.load(p) for p in d.glob("*.npy")}
        z = np.load(d / "heat_pts.npz")
        out["heat_pts"] = [z[f"arr_{i}"] for i in range(len(z.files))]
        return out
    data = make()
    d.mkdir(parents=True, exist_ok=True)
    for k, v in data.items():
        if k == "heat_pts":
            np.savez(d / "heat_pts.npz", *v)
        else:
            np.save(d / f"{k}.npy", v)
    (d / "done").write_text("")
    return data


def train(out: Path, minutes: float = 45.0, n_frames: int = 4000, seed: int = 0, eval_frames: int = 200,
          command: str = "", cache: Path | None = None, only: list[str] | None = None,
          real_dice: Path | None = None, threads: int = 2, real_copies: int = 2, real_share: float = 0.5,
          real_splits=("train", "valid"), device: str = "cpu", batch_scale: int = 1, init: Path | None = None,
          lr: float | None = None, save_state: bool = False, real_masters: bool = False,
          dice_channels=DICE_CHANNELS) -> dict:
    """Train ``only`` these models (default: all), sharing ``minutes`` in the proportions of `SHARES`;
    then measure the whole reader set in ``out`` and rewrite every model card that has a training
    record (``<name>.train.json``). ``real_dice``: Rune55 (`vision.train.real_dice`) for the dice
    classifier. ``threads``: torch threads and rendering processes. ``device``: where the models train
    (``cuda``: a GPU; the recipe is the same), ``batch_scale``: batches that many times larger. ``init``: a
    folder of ``<name>.pt`` state dicts to start from (a second stage), ``lr`` the peak learning rate;
    ``save_state``: keep each trained model's ``<name>.pt`` beside its ONNX (a later stage's ``init``).
    ``real_masters``: the real dice cut afresh in every batch from masters (`vision.train.dice_aug`) instead of
    ``real_copies`` cuts made once; ``dice_channels``: the dice classifier's conv layers."""
    import torch

    torch.set_num_threads(threads)
    t_start = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t_start:6.0f} s] {msg}", file=sys.stderr, flush=True)

    names = [n for n in NAMES if not only or n in only]
    _complete_set(out, [n for n in NAMES if n not in names], log)
    # the half-resolution boards only the heat-map needs (0.55 MB a frame): not kept when it is not trained
    heat_frames = HEAT_FRAMES if "dice_heat" in names else 0

    def make():
        return generate(n_frames, TRAIN_SCHEMES, lambda k: train_rig_seed(seed, k), seed, heat_frames=heat_frames,
                        label="training frames", workers=threads)

    def make_calib():
        return generate(max(200, n_frames // 12), TRAIN_SCHEMES, lambda k: CALIB_SEED0 + 1000 * seed + k,
                        seed + 77, noise=(1.0, 3.0), label="calibration frames", keep_empty=1.0, die_copies=1,
                        workers=threads)

    no_heat = "" if heat_frames else "-noheat"
    data = _cached(cache, f"train-v{DATA_VERSION}-s{seed}-f{n_frames}{no_heat}", make)
    calib = _cached(cache, f"calib-v{DATA_VERSION}-s{seed}-f{n_frames}", make_calib)
    real, real_info = None, None
    if real_dice is not None and "dice" in names:
        from .real_dice import real_dice_examples, real_dice_masters

        if real_masters:
            real, real_info = real_dice_masters(Path(real_dice), seed, real_splits, cache, log=log)
        else:
            real, real_info = real_dice_examples(Path(real_dice), seed, real_copies, splits=real_splits, log=log)
        real_info["batch_share"] = real_share
        log(f"real dice: {real_info}")
    probe = _valid_probe(Path(real_dice), device=device) if real is not None and "valid" not in real_splits else None
    gen_s = time.time() - t_start
    sizes = {k: len(v) for k, v in data.items()}
    log(f"data: {sizes} in {gen_s:.0f} s")
    total_share = sum(SHARES[n] for n in names)
    for name in names:
        with_real = real if name == "dice" else None
        model, summary = train_model(name, data, SHARES[name] / total_share * minutes * 60, seed, log,
                                     real=None if real_masters else with_real, real_share=real_share,
                                     probe=probe if name == "dice" else None, device=device,
                                     batch_scale=batch_scale, init=Path(init) / f"{name}.pt" if init else None,
                                     lr=lr, masters=with_real if real_masters else None,
                                     dice_channels=dice_channels)
        if save_state:
            torch.save(model.state_dict(), out / f"{name}.pt")
        temps = temperatures(name, model, calib)
        log(f"{name}: trained ({summary}), temperature {temps}")
        card = {"command": command, "data": _data_card(n_frames, seed, sizes)}
        if with_real is not None:
            card["data"]["real"] = real_info
        export(name, model, out / f"{name}.onnx", temps, card)
        record = {"command": command, "n_frames": n_frames, "seed": seed, "sizes": sizes, "summary": summary,
                  "temperature": temps, "data_s": round(gen_s), "recipe_minutes": minutes,
                  "data_version": DATA_VERSION}
        if with_real is not None:
            record["real_dice"] = real_info | {"path": str(real_dice)}
        if threads != 2:
            record["threads"] = threads
        (out / f"{name}.train.json").write_text(json.dumps(record, indent=2) + "\n")
    del data
    result = refresh_cards(out, eval_frames, log)
    result.update({"minutes_total": round((time.time() - t_start) / 60, 1), "data_s": round(gen_s)})
    (out / "readers.metrics.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


CARD_FIELDS = ("command", "n_frames", "seed", "sizes", "summary", "temperature", "data_s", "recipe_minutes",
               "data_version")  # what `refresh_cards` reads of every `<name>.train.json`


def _complete_set(out: Path, others: list[str], log) -> None:
    """The readers not trained here, copied from the shipped set where ``out`` lacks them: the set is measured
    whole at the end (`refresh_cards`), and that is better refused before the training than after it."""
    import shutil

    from ..readers import MODELS

    out.mkdir(parents=True, exist_ok=True)
    missing = [n for n in others if not (out / f"{n}.onnx").exists()]
    absent = [n for n in missing if not (MODELS / f"{n}.onnx").exists()]
    if absent:
        raise FileNotFoundError(f"{out}: no {', '.join(absent)} weights to measure the set with, here or in "
                                f"{MODELS} (train them too: drop --only)")
    for n in missing:
        shutil.copy2(MODELS / f"{n}.onnx", out / f"{n}.onnx")
    if missing:
        log(f"not trained here, taken from {MODELS}: {', '.join(missing)}")
    for n in others:  # their cards are rewritten from their records too (`refresh_cards`)
        rec = out / f"{n}.train.json"
        lacking = sorted(set(CARD_FIELDS) - set(json.loads(rec.read_text()))) if rec.exists() else []
        if lacking:
            raise ValueError(f"{rec}: no {', '.join(lacking)}, which its card is rewritten from after the training: "
                             "add them (a record from before the field existed), or train in a folder without it")


def _valid_probe(root: Path, n: int = 2000, device: str = "cpu"):
    """Values right on about ``n`` dice of the Rune55 valid split (cut as the benchmark cuts them, 24 and 16
    px), when valid is held out of training to choose settings on (never test). The photos are taken evenly
    over the split: its files come in runs from one source, and its first 2000 dice read 93 % right where
    the whole split read 80 %."""
    import cv2
    import torch

    from .real_dice import box_crop, load_split

    crops = {24: [], 16: []}
    ys = []
    photos = load_split(root, "valid")
    per_photo = sum(len(ph.boxes) for ph in photos) / max(len(photos), 1)
    for ph in photos[::max(1, int(len(photos) * per_photo / n))]:
        img = cv2.imread(str(ph.path))
        h, w = img.shape[:2]
        for c, x, y, bw, bh in ph.boxes:
            for px in crops:
                crops[px].append(box_crop(img, x * w, y * h, max(bw * w, bh * h), px))
            ys.append(int(c) + 1)
        if len(ys) >= n:
            break
    xs = {px: torch.from_numpy(np.stack(v)).permute(0, 3, 1, 2).float().to(device) for px, v in crops.items()}
    y = np.array(ys)

    def probe(model) -> str:
        with torch.no_grad():
            acc = {px: float((model(x)[0].cpu().numpy().argmax(1) == y).mean()) for px, x in xs.items()}
        model.train()
        return "valid real dice right: " + ", ".join(f"{px} px {a:.3f}" for px, a in acc.items())

    return probe


def refresh_cards(out: Path, eval_frames: int = 200, log=print) -> dict:
    """Measure the reader set in ``out`` on held-out frames and rewrite every model card from its
    training record (``<name>.train.json``) and these figures."""
    from .readers_eval import evaluate

    metrics = {}
    for profile in ("standard", "hard"):
        metrics[profile] = evaluate(out, profile, eval_frames, noise=2.0, seed=0)
        log(f"held-out {profile}: {json.dumps(metrics[profile])}")
    for name in NAMES:
        rec_path = out / f"{name}.train.json"
        if rec_path.exists():
            r = json.loads(rec_path.read_text())
            real = r.get("real_dice")
            real_metrics = None
            if real:
                from .real_dice import test_metrics

                real_metrics = test_metrics(out, Path(real["path"]))
                log(f"{name} on real dice: {json.dumps(real_metrics)}")
                metrics["real_dice"] = real_metrics
            write_card(out, name, r["command"], r["n_frames"], r["seed"], r["sizes"], r["summary"],
                       r["temperature"], metrics, r["data_s"], r["recipe_minutes"], r.get("threads", 2),
                       real, real_metrics, r["data_version"])
    return {"held_out": {k: v for k, v in metrics.items() if k != "real_dice"}, "eval_frames": eval_frames} | \
        ({"real_dice": metrics["real_dice"]} if "real_dice" in metrics else {})


def _schemes_text(version: int = DATA_VERSION) -> str:
    """What the training boards looked like in data ``version`` (a card says what its weights saw, not what the
    renderer draws today)."""
    named = [s for s in dict.fromkeys(TRAIN_SCHEMES) if s != RANDOM]
    share = TRAIN_SCHEMES.count(RANDOM) / len(TRAIN_SCHEMES)
    looks = ["any field, point, checker and dice colours"]
    if version >= 5:
        looks.append("half with stained, grained points, half with grained checkers, a fifth with checkers of the "
                     "field's wood")
    if version >= 6:
        looks.append("a maker's print on the field of 30 %")
    if version >= 7:
        looks.append("a busy bar (loud grain, stripes, hinges) on a quarter")
    if version >= 8:
        looks.append("dice cups left on the field of a quarter")
    if version >= 9:
        looks.append("marks on the checkers of 40 % (a centre dot, a ring, both, a logo's strokes)")
    if version >= 10:
        looks.append("dice drawn as cubes on 60 % (the side faces the camera sees, with their pips), half of those "
                     "translucent")
    if version >= 13:
        looks.append("cubes of their own make on 70 % (dark bodies, numbers on a disc, other typefaces) and score "
                     "flip cards against an end of the board on 40 %")
    text = (f"{', '.join(named)}, and {share:.0%} of the boards in random looks ({'; '.join(looks)}: "
            f"`vision.synth.style.random_style`; data version {version})")
    if version >= 5:
        text += (f"; {TRAIN_SHAPED:.0%} of the rigs a board of a shape of its own (bar, points' length, the field's "
                 "height, 6-7 checkers in a line: `readers_data.random_shape`), rectified as the observer rectifies "
                 "a real board, its field's corners mapped onto the default board's field")
    if version >= 16:
        text += (f"; of those, {PRINTED_BARS:.0%} with a printed board's middle line for a bar (1-8 mm); of the boards "
                 f"with checkers on the bar, {TRAIN_BAR_FREE:.0%} with them laid as real players leave them (either "
                 "colour anywhere, across the middle, now and then one on another: `readers_data.bar_layout`)")
    return text


def _data_card(n_frames: int, seed: int, sizes: dict) -> dict:
    return {"train_frames": n_frames, "train_schemes": _schemes_text(), "profiles": list(TRAIN_PROFILES),
            "train_rig_seeds": f"{train_rig_seed(seed, 0)}..{train_rig_seed(seed, n_frames // PER_RIG)}",
            "calibration_rig_seeds": f"from {CALIB_SEED0 + 1000 * seed}", "held_out_schemes": HELD_OUT_SCHEMES,
            "eval_rig_seeds": f"from {EVAL_SEED0}",
            "examples": {k: v for k, v in sizes.items() if k.endswith("_x")}}


REAL_DICE_SOURCE = ("Rune55 v3, N3VERS4YDIE/dice-recognition, Roboflow, CC BY 4.0 (`datasets/dices` of "
                    "https://github.com/N3VERS4YDIE/dice-recognition, commit aab5ae4; the PATH of `--real-dice`)")

DESIGNS = {
    "points": "31-way classifier of a point crop (192x48 BGR, base at the bottom): empty, light 1..15, "
              "dark 1..15. Five 3x3 conv+BN+ReLU layers (16-32-48-48-64 channels, four of stride 2), "
              "flattened (where the stack ends matters), FC 128, FC 31. All 24 points run as one batch. At run time "
              "the count is the classifier's and the colour is judged across the board "
              "(`vision.readers.point_colours`: the occupied points' checkers (the more colourful half of the "
              "first three's discs: a glossy checker's middle mirrors the lamp) form two clusters in Lab, hue "
              "weighed three times lightness, which shine and shade move; the lighter one is light), since one crop "
              "cannot tell which of two unfamiliar colours is light.",
    "bar": "The bar crop (320x40, at least 1.25 checkers wide): six conv layers (16-32-32-48-64-64, stride 8), the "
           "crop's width folded by a 3x5 convolution, two dilated along the bar: a map of 40 cells along it, each "
           "with the logits of 0..3 checkers centred in it and of their being light. `readers.read_bar` judges each "
           "occupied cell's colour by the board's two checker colours where known and adds the cells up per colour.",
    "tray": "A tray crop (160x40, checkers on edge, the row starting at the bottom): five conv layers, FC 128, "
            "two heads: light 0..15 and dark 0..15. A one-colour row clearly on the other side of the board's "
            "light/dark threshold (from the points) has its heads swapped (`vision.readers.tray_colours`).",
    "dice_heat": "Fully convolutional die-centre heat-map over the half-resolution board (0.75 px/mm, "
                 "360x513): 3x3 convs 12-24-24-24-24 (two of stride 2, dilations 1, 2, 4), 1x1 to one logit "
                 "per 4 px cell. Trained with CenterNet's focal loss on Gaussian targets at where each die shows.",
    "dice": "48x48 crop (32 mm at 1.5 px/mm) around each heat-map peak: five conv layers "
            f"({'-'.join(map(str, DICE_CHANNELS))}), FC 128 beside the {DICE_CHANNELS[-1]} features averaged over "
            "the crop; heads: "
            "7-way (not a die, 1..6) and 4 auxiliary outputs (cocked logit, on-a-checker logit, the die "
            "centre's offset in the crop). Read in its quarter turns and their mirror images, the values "
            "averaged (`vision.readers.DICE_TURNS`).",
    "cube": "The three places on the bar (centre, top end turned half round, bottom end), each a 62 mm window "
            "resized to 64x64: five conv layers, FC 128, 7-way: no cube, or the face 2, 4, 8, 16, 32, 64. "
            "A centred 64 reads as value 1. The same windows slide over the strips beyond the field's ends "
            "(`rectify.rectify_ends`: 6 columns x 16 rows): a cube found there showing 64 is centred, another lies "
            "on its owner's side; no cube anywhere reads as 'off'.",
}


def write_card(out: Path, name: str, command: str, n_frames: int, seed: int, sizes: dict, summary: dict,
               temps: list[float], metrics: dict, gen_s: float, minutes: float, threads: int = 2,
               real: dict | None = None, real_metrics: dict | None = None, data_version: int = DATA_VERSION) -> None:
    size_kb = (out / f"{name}.onnx").stat().st_size / 1024
    relevant = {"points": ["point_acc", "slot_acc", "exact_position"], "bar": ["bar_acc", "slot_acc"],
                "tray": ["tray_acc", "slot_acc"], "dice_heat": ["dice_recall", "dice_false_per_frame"],
                "dice": ["dice_value_acc", "dice_recall", "cocked_acc"],
                "cube": ["cube_value_acc", "cube_place_acc"]}[name]
    lines = [f"# {name}.onnx", "", f"Part of the board readers (`vision/readers.py`). {DESIGNS[name]}", "",
             f"- file: `models/{name}.onnx`, {size_kb:.0f} KB; input `image`: float32 NCHW, raw BGR 0..255"
             + ("; outputs `logits` (N, 31) and `features` (N, 128: the last hidden layer, on which `bgscribe adapt` "
                "fits a board's own head, `vision/adapt.py`; `add_features_output`)" if name == "points" else ""),
             f"- temperature (fitted on the calibration frames, applied by `vision.readers`): {temps}", "",
             "## Recipe", "", "```sh", command, "```", "",
             (f"On a GPU ({summary['device']}; {threads} rendering processes): data {gen_s / 60:.0f} min "
              if summary.get("device", "cpu").startswith("cuda") else
              f"CPU only ({threads} {'core' if threads == 1 else 'cores'}): data {gen_s / 60:.0f} min ")
             + f"(rendering: once, `--cache` keeps it{'; cutting the real dice' if real else ''}), then "
             f"{minutes:g} min of training shared by the models trained in the command; this model: "
             f"{summary['steps']} steps of batch {summary['batch']} in {summary['seconds']} s "
             f"({summary['examples_seen'] / max(summary['train_examples'], 1):.1f} passes over "
             f"{summary['train_examples']} examples). AdamW "
             f"{summary.get('lr', 2e-3):.2g}" + (f" from `{summary['init']}`" if summary.get("init") else "")
             + ", cosine over the time budget; colour "
             "augmentation (channel shuffle, gains, contrast, grey, noise), left-right flips for slots"
             + (" (the bar also turned end over end, its map with it)" if data_version >= 16 else "") + ".", "",
             "## Data", "",
             f"- training: {n_frames} frames rendered by `vision.synth` ({PER_RIG} per rig), schemes "
             f"{_schemes_text(data_version)}; profiles clean:standard:hard = 1:3:2; rig seeds "
             f"{train_rig_seed(seed, 0)}.. ; every count 0..15 sampled on purpose (40 % of boards from random "
             "legal games, 60 % free layouts); 0-4 dice anywhere on the halves, 12 % cocked; the cube at any "
             "place on the bar" + (f", or (on {TRAIN_CUBE_ENDS:.0%} of the boards) in a tray or on the frame at either "
                                   f"end, 24-40 mm, any way round, with {END_NEGATIVES} empty windows a frame over "
                                   "those ends" if data_version >= 12 else "")
             + "; corner noise N(0, s) px with s ~ U(0, 3); JPEG quality 35..95.",
             f"- calibration: {max(200, n_frames // 12)} frames, same schemes, rig seeds from "
             f"{CALIB_SEED0 + 1000 * seed}.",
             f"- held-out evaluation: scheme {', '.join(HELD_OUT_SCHEMES)} (never trained on), rig seeds from "
             f"{EVAL_SEED0}, corner noise N(0, 2) px, JPEG quality 60 (standard) / 40 (hard).",
             f"- examples cut: {json.dumps({k: v for k, v in sizes.items() if k.endswith('_x')})}"]
    if real:
        splits = real.get("splits", ["train", "valid"])
        held = "test" if "valid" in splits else "valid and test"
        lines += [f"- real dice: {REAL_DICE_SOURCE}: the {' and '.join(splits)} split{'s' * (len(splits) > 1)}, "
                  f"{real['photos_used']} photos ({real['copies_left_out']} of {real['photos']} left out as copies "
                  f"of {held} photos, "
                  f"re-encoded, mirrored or turned), {real['dice_used']} dice, " + (
                      f"each cut once as a master ({real['master_px']} px, the die {real['master_die_px']} px) "
                      f"and cut from it afresh in every batch spanning {MASTER_PX_RANGE[0]:g}-"
                      f"{MASTER_PX_RANGE[1]:g} px of the crop, turned, mirrored, in slight perspective, tinted or "
                      "inverted, blurred or seen at a lower resolution, noised (`vision.train.dice_aug`), labelled "
                      f"flat and not on a checker; {real['negatives']} masters of their tables as not a die: "
                      f"{real['masters']} masters, " if "masters" in real else
                      f"each cut {real['copies_per_die']} times spanning {real['die_px'][0]:g}-{real['die_px'][1]:g} "
                      "px of the crop, turned, in slight perspective, blurred, tinted and JPEG'd, labelled flat and "
                      f"not on a checker; {real['negatives']} crops of their tables as not a die: "
                      f"{real['examples']} examples, ")
                  + f"{real.get('batch_share', 0.5):.0%} of every batch (`vision.train.real_dice`). Attribution: "
                  "Rune55 v3 by a Roboflow user (rune-zkmvl), "
                  "https://universe.roboflow.com/rune-zkmvl/rune55/dataset/3, CC BY 4.0."]
    lines += ["", "## Held-out metrics (the whole reader set, through onnxruntime)", "",
             "| metric | standard | hard |", "|---|---|---|"]
    for key in relevant + ["p99_wrong_rate", "ms_per_board"]:
        if key in metrics.get("standard", {}):
            lines.append(f"| {key} | {metrics['standard'][key]} | {metrics['hard'].get(key)} |")
    lines += ["", "All figures: `python tests/bench/bench_readers.py` (JSON; definitions there).", ""]
    if real_metrics:
        lines += ["## Real dice (Rune55 test split, never trained on)", "",
                  f"{real_metrics['photos']} photos; every die cut as `tests/bench/bench_real.py` cuts it "
                  "(`vision.train.real_dice.box_crop`), spanning the given px of the 48 px crop (24: a 16 mm die "
                  "on the rectified board; 16-20: 11-13 mm dice, or what is left of a die seen small; 32: a die of a "
                  "folding board, smaller than the default, as the rectified view enlarges it). All lie flat.",
                  "", "| die px | dice | values right | called not a die | flat called cocked |",
                  "|---|---|---|---|---|"]
        for px, f in real_metrics["by_die_px"].items():
            lines.append(f"| {px} | {f['dice']} | {f['values_right']} | {f['called_not_a_die']} | "
                         f"{f['flat_called_cocked']} |")
        lines += ["", "`python tests/bench/bench_real.py --only dice-rune55 --dice 4000` (JSON).", ""]
    (out / f"{name}.md").write_text("\n".join(lines))


def add_arguments(p) -> None:
    p.add_argument("--frames", type=int, default=4000, help="training frames to render (default: %(default)s)")
    p.add_argument("--cache", metavar="DIR", help="keep the rendered examples here (a rerun skips rendering)")
    p.add_argument("--only", nargs="+", choices=NAMES, metavar="MODEL",
                   help=f"train only these ({', '.join(NAMES)}); the others in --out stay as they are (copied "
                        "there from the shipped models/ where --out lacks them)")
    p.add_argument("--real-dice", metavar="PATH",
                   help="Rune55 (train/, valid/, test/ in YOLO form): the dice classifier also trains on its real "
                        "dice (train and valid, less copies of test photos; see vision.train.real_dice)")
    p.add_argument("--real-copies", type=int, default=2, help="cuts of every real die (default: %(default)s)")
    p.add_argument("--real-masters", action="store_true",
                   help="cut the real dice afresh in every batch from one master crop each (kept in --cache; "
                        "vision.train.dice_aug) instead of --real-copies cuts made once")
    p.add_argument("--dice-channels", type=int, nargs=5, default=list(DICE_CHANNELS), metavar="C",
                   help="the dice classifier's five conv layers (default: %(default)s)")
    p.add_argument("--real-share", type=float, default=0.5,
                   help="share of every dice batch drawn from the real dice (default: %(default)s)")
    p.add_argument("--real-splits", nargs="+", default=["train", "valid"], choices=["train", "valid"],
                   help="Rune55 splits trained on (default: %(default)s); one left out is held out to choose "
                        "settings on, less its copies")
    p.add_argument("--threads", type=int, default=2,
                   help="torch threads and rendering processes (default: %(default)s)")
    p.add_argument("--device", default="cpu",
                   help="where the models train: cpu, or cuda for a GPU (the same recipe; default: %(default)s)")
    p.add_argument("--init", metavar="DIR",
                   help="start each trained model from DIR/<name>.pt (weights of an earlier stage, --save-state)")
    p.add_argument("--lr", type=float, help="peak learning rate (default: 2e-3 x the root of --batch-scale)")
    p.add_argument("--save-state", action="store_true",
                   help="keep each trained model's torch weights, <name>.pt, beside its ONNX (for --init)")
    p.add_argument("--batch-scale", type=int, default=1,
                   help="batches this many times larger, the learning rate by its square root (default: "
                        "%(default)s; 4 on a GPU in the dice trial of 2026-12-04, models/dice.md)")
    p.add_argument("--eval-frames", type=int, default=200,
                   help="held-out frames per profile for the model cards (default: %(default)s)")


def run(args) -> int:
    minutes = args.minutes if args.minutes is not None else 45.0
    command = (f"bgscribe train readers --out {args.out} --minutes {minutes:g} --frames {args.frames} "
               f"--seed {args.seed}" + (f" --only {' '.join(args.only)}" if args.only else "")
               + (f" --real-dice {args.real_dice}" if args.real_dice else "")
               + (f" --real-copies {args.real_copies}" if args.real_copies != 2 else "")
               + (" --real-masters" if args.real_masters else "")
               + (f" --dice-channels {' '.join(map(str, args.dice_channels))}"
                  if tuple(args.dice_channels) != DICE_CHANNELS else "")
               + (f" --real-share {args.real_share:g}" if args.real_share != 0.5 else "")
               + (f" --real-splits {' '.join(args.real_splits)}" if args.real_splits != ["train", "valid"] else "")
               + (f" --threads {args.threads}" if args.threads != 2 else "")
               + (f" --device {args.device}" if args.device != "cpu" else "")
               + (f" --batch-scale {args.batch_scale}" if args.batch_scale != 1 else "")
               + (f" --init {args.init}" if args.init else "")
               + (f" --lr {args.lr:g}" if args.lr is not None else "")
               + (" --save-state" if args.save_state else "")
               + (f" --cache {args.cache}" if args.cache else ""))
    result = train(Path(args.out), minutes=minutes, n_frames=args.frames, seed=args.seed,
                   eval_frames=args.eval_frames, command=command, cache=Path(args.cache) if args.cache else None,
                   only=args.only, real_dice=Path(args.real_dice) if args.real_dice else None, threads=args.threads,
                   real_share=args.real_share, real_splits=tuple(args.real_splits), device=args.device,
                   batch_scale=args.batch_scale, init=args.init, lr=args.lr, save_state=args.save_state,
                   real_copies=args.real_copies, real_masters=args.real_masters,
                   dice_channels=tuple(args.dice_channels))
    print(json.dumps(result, indent=2))
    return 0
