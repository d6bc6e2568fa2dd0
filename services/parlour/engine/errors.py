"""Engine errors: one class per meaning, each naming the rule it enforces.

Every error carries ``rule`` (a short name of the rule broken, e.g.
``"must follow suit"``) and a message that quotes the bad input. An engine
method that raises leaves the game state exactly as it was. The service maps
these classes to gRPC status codes in one place.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises for bad input."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class MalformedAction(EngineError):
    """The input cannot be understood at all (unknown card code, bad syntax)."""


class InvalidOptions(EngineError):
    """A table option or seat count outside what the game allows."""


class UnknownGame(EngineError):
    """No game is registered under that id."""


class IllegalAction(EngineError):
    """Understood, but the rules forbid it now (card not in hand, must follow suit...)."""


class NotYourTurn(EngineError):
    """The seat acting is not one of the seats the game is waiting for."""


class GameOver(EngineError):
    """The game has ended; nothing more can be applied."""


class BadDeck(EngineError):
    """A supplied deck (outcome of chance) is not a shuffle of the cards asked for."""
