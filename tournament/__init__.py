"""The tournament desk's rules, pure: formats, pairing (through the `swisspair` engine), standings, Cup and
ranking points, prizes, and PR figures from GNU Backgammon. Imports only `transcriber`, the standard library and
third-party packages: the server (`review_ui`) and the command line build on it, never the other way round."""

from .model import Bye, EventRules, Pairing, Result, RoundDraw
from .pairing import PairingError, swiss_pairing
from .standings import Standing, standings

__all__ = ["Bye", "EventRules", "Pairing", "PairingError", "Result", "RoundDraw", "Standing", "standings",
           "swiss_pairing"]
