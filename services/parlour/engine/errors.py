"""Engine errors: one class per meaning, each naming the rule it enforces.

Every error carries ``rule`` (a short name of the rule broken, e.g.
``"must follow suit"``) and a message that quotes the bad input. An engine
method that raises leaves the game state exactly as it was. The service maps
these classes to gRPC status codes in one place.

Every error also carries ``reason``, a machine-readable code (the contract
lists them in ``common.proto``: ``MUST_FOLLOW_SUIT``, ``NOT_YOUR_TURN``...),
and ``args``, the facts a client needs to say it in its player's language
(card codes, suit letters, seats from 0, numbers, as strings). A class's
``REASON`` is the code of a raise that names none.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises for bad input."""

    REASON = "ILLEGAL_ACTION"

    def __init__(self, rule: str, detail: str, *, reason: str = "", **args: object) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail
        self.reason = reason or self.REASON
        self.reason_args = {name: str(value) for name, value in args.items()}


class MalformedAction(EngineError):
    """The input cannot be understood at all (unknown card code, bad syntax)."""

    REASON = "MALFORMED_ACTION"


class InvalidOptions(EngineError):
    """A table option or seat count outside what the game allows."""

    REASON = "INVALID_OPTIONS"


class UnknownGame(EngineError):
    """No game is registered under that id."""

    REASON = "UNKNOWN_GAME"


class IllegalAction(EngineError):
    """Understood, but the rules forbid it now (card not in hand, must follow suit...)."""

    REASON = "ILLEGAL_ACTION"


class NotYourTurn(EngineError):
    """The seat acting is not one of the seats the game is waiting for."""

    REASON = "NOT_YOUR_TURN"


class GameOver(EngineError):
    """The game has ended; nothing more can be applied."""

    REASON = "GAME_OVER"


class BadDeck(EngineError):
    """A supplied deck (outcome of chance) is not a shuffle of the cards asked for."""

    REASON = "BAD_DECK"
