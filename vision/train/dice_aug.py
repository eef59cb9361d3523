"""Real dice crops drawn afresh every batch from their masters (torch; runs on the training device).

`vision.train.real_dice.real_dice_masters` cuts every real die once, upright and centred, its box spanning
`MASTER_DIE` px of a `MASTER` px crop. Each batch cuts the `DIE_CROP` crops the classifier reads out of them
as `box_crop` would from the photo, but every time anew: the die spanning ``die_px`` px (drawn per crop),
turned by any angle, mirrored, its centre off the crop's by N(0, 2.5) px, in slight perspective; then tinted
(97 % of the photos are grey), at times inverted (light dice on dark tables become dark dice with light pips),
blurred or seen at a lower resolution, and noised. Labels: the value, flat, not on a checker, the die's offset.

Two copies of each die cut once (the recipe before) were seen ~18 times each in a CPU run; drawn afresh, a
GPU run sees every die in hundreds of different cuts.
"""

from __future__ import annotations

import math

import numpy as np

from ..readers import DIE_CROP
from .real_dice import MASTER, MASTER_DIE, MASTER_PX_RANGE

JITTER = 2.5  # px (crop), the sd of the die centre's offset
MAX_OFF = 8.0
PERSP = 0.03  # sd of the perspective terms (normalised crop coordinates)


class RealDice:
    """Masters on ``device`` (uint8 NCHW, and at half resolution for dice cut small: no aliasing)."""

    def __init__(self, masters: dict, device, die_px_range=MASTER_PX_RANGE):
        import torch
        from torch.nn import functional as F

        self.device = device
        x = torch.from_numpy(np.ascontiguousarray(masters["x"])).permute(0, 3, 1, 2).contiguous()
        self.full = x.to(device)
        half = []
        for k in range(0, len(x), 4096):  # area-halved: a die 14 px
            half.append(F.avg_pool2d(x[k:k + 4096].float(), 2).round().to(torch.uint8))
        self.half = torch.cat(half).to(device)
        self.y = torch.from_numpy(np.asarray(masters["y"], np.int64)).to(device)
        self.n = len(self.y)
        self.die_px_range = die_px_range

    def batch(self, bs: int, g) -> tuple:
        """(x float NCHW 0..255 on the device, y (bs,), aux (bs, 4)): ``bs`` crops of random masters."""
        import torch
        from torch.nn import functional as F

        dev = self.device

        def rand(*shape):
            return torch.rand(*shape, generator=g, device=dev)

        idx = torch.randint(0, self.n, (bs,), generator=g, device=dev)
        y = self.y[idx]
        lo, hi = self.die_px_range
        die_px = lo + (hi - lo) * rand(bs)
        k = MASTER_DIE / die_px  # master px per crop px
        small = k > 1.4  # cut from the half-resolution master (k / 2 there)
        th = 2 * math.pi * rand(bs)
        mirror = torch.where(rand(bs) < 0.5, -1.0, 1.0)
        cos, sin = torch.cos(th), torch.sin(th)
        off = (torch.randn(bs, 2, generator=g, device=dev) * JITTER).clamp(-MAX_OFF, MAX_OFF)  # die in crop, px
        # crop px p (centred) -> master px k R M (p - off); normalised (align_corners False): crop u = p / 24,
        # master v = q / 48 -> v = (k / 2) R M u - (k / 48) R M off
        a = torch.stack([torch.stack([cos * mirror, -sin], 1), torch.stack([sin * mirror, cos], 1)], 1)  # R M
        lin = a * (k / (MASTER / DIE_CROP))[:, None, None]
        t = -(a @ off[:, :, None])[:, :, 0] * (k / (MASTER / 2))[:, None]
        theta = torch.cat([lin, t[:, :, None]], 2)
        # slight perspective: the crop's own coordinates bent first
        n = DIE_CROP
        lin_u = (torch.arange(n, device=dev, dtype=torch.float32) * 2 + 1) / n - 1
        gy, gx = torch.meshgrid(lin_u, lin_u, indexing="ij")
        base = torch.stack([gx, gy, torch.ones_like(gx)], -1).reshape(1, n * n, 3)  # (1, P, 3)
        persp = rand(bs) < 0.7
        hm = torch.eye(3, device=dev).repeat(bs, 1, 1)
        hm[:, :2, :2] += torch.randn(bs, 2, 2, generator=g, device=dev) * PERSP * persp[:, None, None]
        hm[:, 2, :2] += torch.randn(bs, 2, generator=g, device=dev) * PERSP * persp[:, None]
        uw = base @ hm.transpose(1, 2)
        uw = uw[..., :2] / uw[..., 2:]
        uw = torch.cat([uw, torch.ones_like(uw[..., :1])], -1)  # (bs, P, 3)
        grid = (uw @ theta.transpose(1, 2)).reshape(bs, n, n, 2)
        # normalised coordinates do not depend on the resolution: the half-resolution masters take the same grid
        x = torch.empty(bs, 3, DIE_CROP, DIE_CROP, device=dev)
        for sel, src in ((~small, self.full), (small, self.half)):
            if sel.any():
                x[sel] = F.grid_sample(src[idx[sel]].float(), grid[sel], mode="bilinear", padding_mode="border",
                                       align_corners=False)
        # the die's position in the crop under the perspective: solve numerically is overkill; the bend is small
        aux = torch.zeros(bs, 4, device=dev)
        aux[:, 2:] = off / (DIE_CROP / 2)
        return self.degrade(x, die_px, g), y, aux

    def degrade(self, x, die_px, g):
        """Tint, invert, blur or lower resolution, never so much that a die of ``die_px`` loses its pips."""
        import torch
        from torch.nn import functional as F

        dev = x.device
        bs = x.shape[0]

        def rand(*shape):
            return torch.rand(*shape, generator=g, device=dev)

        tint = (rand(bs) < 0.6)[:, None, None, None]
        gains = 0.55 + 0.75 * rand(bs, 3, 1, 1)
        bias = -20 + 40 * rand(bs, 3, 1, 1)
        x = torch.where(tint, x * gains + bias, x)
        inv = (rand(bs) < 0.3)[:, None, None, None]
        x = torch.where(inv, 255.0 - x, x).clamp(0, 255)
        r = rand(bs)
        blur = r < 0.35
        if blur.any():  # Gaussian, sd 0.3 .. min(1, die_px / 24), in three steps
            sd_max = (die_px / 24).clamp(0.35, 1.0)
            sd = 0.3 + (sd_max - 0.3) * rand(bs)
            for lo, hi, s in ((0.0, 0.5, 0.4), (0.5, 0.75, 0.62), (0.75, 9.0, 0.87)):
                m = blur & (sd >= lo) & (sd < hi)
                if m.any():
                    x[m] = _gauss(x[m], s)
        low = (r >= 0.35) & (r < 0.6)
        if low.any():  # seen at a lower resolution (the die 11 px or more), upsampled by the rectification
            f_lo = (11.0 / die_px).clamp(0.45, 0.85)
            f = f_lo + (0.9 - f_lo) * rand(bs)
            for lo, hi in ((0.0, 0.6), (0.6, 0.75), (0.75, 1.0)):
                m = low & (f >= lo) & (f < hi)
                if m.any():
                    side = max(int(DIE_CROP * (lo + min(hi, 0.9)) / 2), 8)
                    s = F.interpolate(x[m], size=(side, side), mode="bilinear", antialias=True, align_corners=False)
                    x[m] = F.interpolate(s, size=(DIE_CROP, DIE_CROP), mode="bilinear", align_corners=False)
        # stands in for JPEG's blocks and the camera's noise (the masters themselves are JPEG'd photos)
        x = x + torch.randn(x.shape, generator=g, device=dev) * (3 * rand(bs, 1, 1, 1))
        return x.clamp(0, 255)


def _gauss(x, sd: float):
    import torch
    from torch.nn import functional as F

    r = 2
    t = torch.arange(-r, r + 1, device=x.device, dtype=torch.float32)
    k = torch.exp(-t**2 / (2 * sd * sd))
    k = k / k.sum()
    c = x.shape[1]
    x = F.pad(x, (r, r, r, r), mode="replicate")
    x = F.conv2d(x, k.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)
    return F.conv2d(x, k.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)
