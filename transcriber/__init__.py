"""The backgammon domain: positions, the rules engine, match records and file formats.

Depends on the standard library (and numpy where arrays help) only: no OpenCV, no web.
"""

from .errors import BgscribeError, MatchFormatError, NotationError
from .ids import XgState, from_position_id, parse_xgid, position_id, xgid
from .mat import parse_mat, read_mat, write_mat
from .moves import IllegalPlayError, Play, legal_plays, parse_play
from .position import Position
from .record import (
    PROFILES,
    Beaver,
    Double,
    Drop,
    Game,
    MatchRecord,
    Move,
    Raccoon,
    Resign,
    RulesProfile,
    Take,
    Timeout,
)
from .replay import MatchReplay, Problem, replay_match

__all__ = [
    "PROFILES", "BgscribeError", "Beaver", "Double", "Drop", "Game", "IllegalPlayError", "MatchFormatError",
    "MatchRecord", "MatchReplay", "Move", "NotationError", "Play", "Position", "Problem", "Raccoon", "Resign",
    "RulesProfile", "Take", "Timeout", "XgState", "from_position_id", "legal_plays", "parse_mat", "parse_play",
    "parse_xgid", "position_id", "read_mat", "replay_match", "write_mat", "xgid",
]
