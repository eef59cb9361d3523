"""The transcriber's own errors: everything a bad file or notation can raise."""


class BgscribeError(Exception):
    """Base for errors that are reported to the user as a message, never a traceback."""


class NotationError(BgscribeError, ValueError):
    """Play notation that cannot be read or does not describe a legal play."""


class MatchFormatError(BgscribeError, ValueError):
    """A match file that cannot be read; names the file, line, game and move where known."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 game: int | None = None, move: int | None = None):
        self.reason = message
        self.path, self.line, self.game, self.move = path, line, game, move
        where = ":".join(str(x) for x in (path, line) if x is not None)
        ctx = ", ".join(f"{k} {v}" for k, v in (("game", game), ("move", move)) if v is not None)
        super().__init__(f"{where + ': ' if where else ''}{message}{f' ({ctx})' if ctx else ''}")
