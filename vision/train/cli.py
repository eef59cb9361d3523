"""`bgscribe train TARGET`: reproduce a shipped model from scratch (needs the [train] extra).

Each target is a module with ``add_arguments(parser)`` and ``run(args) -> int``; to add
one, list it in `TARGETS`.
"""

from __future__ import annotations

import importlib
import sys

TARGETS = {
    "corners": ("vision.train.corners", "the board-corner locator (models/corners.onnx)"),
    "readers": ("vision.train.readers", "the board readers: checker counts, dice, cube (models/points.onnx, ...)"),
}


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="target", metavar="TARGET")
    for name, (module, help_text) in TARGETS.items():
        p = sub.add_parser(name, help=help_text, description=f"Train {help_text} from simulator data.")
        p.add_argument("--out", default="models", metavar="DIR",
                       help="where the .onnx and metrics go (default: models)")
        p.add_argument("--seed", type=int, default=0, help="data and initialisation seed (default: 0)")
        p.add_argument("--minutes", type=float, help="stop training after this many minutes")
        p.set_defaults(train_module=module)
        try:
            importlib.import_module(module).add_arguments(p)
        except ImportError as e:  # a target whose own imports are missing still shows in --help
            p.set_defaults(train_error=str(e))


def run(args) -> int:
    if not getattr(args, "train_module", None):
        print("bgscribe train: name a target: " + ", ".join(TARGETS), file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bgscribe train: needs the training extra: pip install -e '.[train]' "
              "(on CPU: pip install torch==2.13.0 first, which takes the CPU build)", file=sys.stderr)
        return 1
    return importlib.import_module(args.train_module).run(args)
