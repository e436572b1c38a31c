"""Game records: variant + seed + actions, which replay to the identical game."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .errors import IllegalAction, RecordError
from .game import Game
from .variants import STANDARD, Variant

RECORD_VERSION = 1


@dataclass(slots=True)
class GameRecord:
    """Everything needed to rebuild a seeded game exactly."""

    players: int
    seed: int
    variant: Variant = STANDARD
    actions: list[Action] = field(default_factory=list)

    @classmethod
    def of(cls, game: Game) -> GameRecord:
        """The record of a seeded game so far."""
        if game.seed is None:
            raise RecordError("Only games dealt from a seed can be recorded.")
        return cls(game.players, game.seed, game.variant, list(game.actions))

    def replay(self) -> Game:
        """Rebuild the game by dealing from the seed and applying every action."""
        game = Game(self.players, variant=self.variant, seed=self.seed)
        for index, action in enumerate(self.actions):
            try:
                game.apply(action)
            except IllegalAction as exc:
                raise RecordError(
                    f"Action {index} ({action}) does not replay: {exc}", index
                ) from exc
        return game

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "version": RECORD_VERSION,
            "players": self.players,
            "seed": self.seed,
            "variant": self.variant.to_dict(),
            "actions": [a.to_dict() for a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Inverse of `to_dict`."""
        if data.get("version") != RECORD_VERSION:
            raise RecordError(f"Unsupported record version {data.get('version')!r}.")
        try:
            return cls(
                players=int(data["players"]),
                seed=int(data["seed"]),
                variant=Variant.from_dict(data["variant"]),
                actions=[Action.from_dict(a) for a in data["actions"]],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"Not a game record: {exc}") from exc

    def to_json(self) -> str:
        """One-line JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Inverse of `to_json`."""
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise RecordError(f"Not JSON: {exc}") from exc
