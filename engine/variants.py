"""Rule variants and the concrete setup of a game for a player count.

A `Variant` is a named option a lobby picks; `Setup` is what it means for one player
count: role counts, the deck, tiles already on the board and the power track.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import SetupError
from .roles import Power

MIN_PLAYERS = 5
MAX_PLAYERS = 10
LIBERAL_TO_WIN = 5
FASCIST_TO_WIN = 6
HITLER_ZONE = 3  # Fascist policies after which electing Hitler chancellor wins
VETO_AT = 5  # Fascist policies after which a veto may be proposed
CHAOS_AT = 3  # failed elections in a row that trigger a top-deck
DRAW = 3  # tiles a president draws; a draw pile with fewer is reshuffled
MIN_LIVING = 3  # players a game keeps alive: a president and two others to nominate from
# With this many living players or fewer, only the last chancellor is term-limited.
FEW_ALIVE = 5
# Tiles of one kind a custom deck may hold. The published deck has 6 and 11; the cap only
# keeps a damaged or forged record (its variant is read from JSON) from dealing millions.
MAX_TILES = 100

# players -> fascists besides Hitler
FASCISTS_BESIDES_HITLER = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}

PowerTrack = tuple[Power | None, ...]

_I, _S, _P, _E = Power.INVESTIGATE, Power.SPECIAL_ELECTION, Power.POLICY_PEEK, Power.EXECUTION
STANDARD_TRACKS: dict[str, PowerTrack] = {
    "small": (None, None, _P, _E, _E),
    "medium": (None, _I, _S, _E, _E),
    "large": (_I, _I, _S, _E, _E),
}


def standard_track(players: int) -> PowerTrack:
    """The published power track (slots 1..5 of the Fascist track) for a player count."""
    if players <= 6:
        return STANDARD_TRACKS["small"]
    if players <= 8:
        return STANDARD_TRACKS["medium"]
    return STANDARD_TRACKS["large"]


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything fixed at the start of one game."""

    players: int
    variant: str
    fascists: int  # besides Hitler
    liberal_tiles: int
    fascist_tiles: int
    fascist_policies_at_start: int
    powers: PowerTrack

    @property
    def liberals(self) -> int:
        """Number of Liberal players."""
        return self.players - self.fascists - 1

    @property
    def hitler_knows_fascists(self) -> bool:
        """Hitler learns the Fascists' identity only in small games."""
        return self.players <= 6

    @property
    def total_tiles(self) -> int:
        """Tiles in the game, including any that start on the board."""
        return self.liberal_tiles + self.fascist_tiles + self.fascist_policies_at_start

    def power_after(self, fascist_policies: int) -> Power | None:
        """The power granted by enacting the given Fascist policy (1-based), if any."""
        if 1 <= fascist_policies <= len(self.powers):
            return self.powers[fascist_policies - 1]
        return None


@dataclass(frozen=True, slots=True)
class Variant:
    """A named rule option, recorded with every game.

    `standard` is the published game. `rebalanced` is secrethitler.io's: at 6 players one
    Fascist policy starts on the board (taken from the deck); at 7 and 9 players the deck
    holds one Fascist tile fewer. `custom` sets the deck and the power track explicitly.
    """

    name: str = "standard"
    liberal_tiles: int | None = None
    fascist_tiles: int | None = None
    powers: PowerTrack | None = field(default=None)

    def setup(self, players: int) -> Setup:
        """The concrete setup of this variant for a player count."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError(
                f"Secret Hitler needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}."
            )
        liberal_tiles, fascist_tiles, on_board = 6, 11, 0
        if self.name == "rebalanced":
            if players == 6:
                fascist_tiles, on_board = 10, 1
            elif players in (7, 9):
                fascist_tiles = 10
        elif self.name not in ("standard", "custom"):
            raise SetupError(f"Unknown variant {self.name!r}.")
        if self.name != "custom" and (
            self.liberal_tiles is not None
            or self.fascist_tiles is not None
            or self.powers is not None
        ):
            # The name is what views, narration and the AI's search rebuild the game from.
            raise SetupError(
                f"A deck or power track of one's own is the custom variant, not {self.name!r}."
            )
        liberal_tiles = _tiles(self.liberal_tiles, liberal_tiles, "liberal")
        fascist_tiles = _tiles(self.fascist_tiles, fascist_tiles, "fascist")
        powers = self.powers if self.powers is not None else standard_track(players)
        if len(powers) != FASCIST_TO_WIN - 1:
            raise SetupError(f"A power track has {FASCIST_TO_WIN - 1} slots, not {len(powers)}.")
        if players - powers.count(Power.EXECUTION) < MIN_LIVING:
            # Two left, one of them the last Chancellor: nobody could be nominated.
            raise SetupError(
                f"A power track leaves at least three players alive: at most "
                f"{players - MIN_LIVING} executions at {players} players."
            )
        if liberal_tiles < LIBERAL_TO_WIN or fascist_tiles + on_board < FASCIST_TO_WIN:
            raise SetupError("The deck is too small for either side to win.")
        # With 4 Liberal and 5 Fascist policies on the board the game goes on, and a
        # president must still be able to draw three tiles.
        if (
            liberal_tiles + fascist_tiles + on_board - (LIBERAL_TO_WIN - 1) - (FASCIST_TO_WIN - 1)
            < DRAW
        ):
            raise SetupError(
                f"The deck needs at least {LIBERAL_TO_WIN + FASCIST_TO_WIN - 2 + DRAW} tiles "
                f"so a president can always draw {DRAW}."
            )
        return Setup(
            players=players,
            variant=self.name,
            fascists=FASCISTS_BESIDES_HITLER[players],
            liberal_tiles=liberal_tiles,
            fascist_tiles=fascist_tiles,
            fascist_policies_at_start=on_board,
            powers=powers,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; only the options that are set."""
        out: dict[str, Any] = {"name": self.name}
        if self.liberal_tiles is not None:
            out["liberal_tiles"] = self.liberal_tiles
        if self.fascist_tiles is not None:
            out["fascist_tiles"] = self.fascist_tiles
        if self.powers is not None:
            out["powers"] = [p.value if p else None for p in self.powers]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Variant:
        """Inverse of `to_dict`."""
        powers = data.get("powers")
        return cls(
            name=data.get("name", "standard"),
            liberal_tiles=data.get("liberal_tiles"),
            fascist_tiles=data.get("fascist_tiles"),
            powers=tuple(Power(p) if p else None for p in powers) if powers is not None else None,
        )


def _tiles(count: int | None, default: int, kind: str) -> int:
    """A custom deck's count of one kind of tile (`default` if unset): a whole number
    up to MAX_TILES, else SetupError."""
    if count is None:
        return default
    if isinstance(count, bool) or not isinstance(count, int):
        raise SetupError(f"A deck's count of {kind} tiles must be a whole number.")
    if count > MAX_TILES:
        raise SetupError(f"A deck holds at most {MAX_TILES} {kind} tiles, not {count}.")
    return count


STANDARD = Variant("standard")
REBALANCED = Variant("rebalanced")
