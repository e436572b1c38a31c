"""The rating ladder people and AI players share: openskill's Plackett-Luce model, one
game at a time, the two sides (Liberals; Fascists with Hitler) as the two teams.

Pure: no storage, no clock. `rate` turns one finished game's seats and winner into the
new ratings of its players; `ladder` folds a sequence of games into the whole ladder, so
the stored ladder is always a function of the stored history (`bot.storage` rates each
finished game once, in its finish transaction, in the order `rated_games` keeps).

Why openskill: a Bayesian rating (a mean skill and its uncertainty) made for teams of
unequal size, small and MIT-licensed, where Elo would need a home-made team extension.
Who a rating belongs to:

- a human, by Discord user id, across servers (one player, one skill; a per-server
  ladder would split the few games each server has, and the AI strengths, which play
  everywhere, could not be compared between servers);
- an AI, by the agent spec its seat was dealt ("belief-ismcts:seconds=2"): each lobby
  strength (easy, normal, strong) is one spec, so each strength has its own rating and
  players see how strong "strong" is.

A seat is credited as the stats credit it: to the human it was dealt to, even when an AI
played it for them after they went idle or left (the result of a game they abandoned is
theirs, or leaving a lost game would protect a rating), and a seat dealt to an AI and
taken over by a human to that human. An AI that stood in for an absent human is not
rated for that seat: it played only part of a game someone else began.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from engine import Party

# The familiar openskill scale: a new player is mu 25, sigma 25/3, so ordinal 0.
START_MU = 25.0
START_SIGMA = 25.0 / 3.0
# The model sees skill relative to a new player (its mu is ours minus START_MU). openskill
# adds the mus of a team's members, so on the usual scale 6 new Liberals "outweigh" 4 new
# Fascists: a Fascist win would move each player 6 times as far as a Liberal win (2.2
# against 0.35). The sides' sizes are the game's own balance, not strength; relative to a
# new player, a table of new players is an even match.
MODEL = PlackettLuce(mu=0.0, sigma=START_SIGMA, beta=START_SIGMA / 2)

HUMAN_PREFIX = "user:"
AI_PREFIX = "ai:"


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's skill: a mean and its uncertainty, on the scale a new player starts at
    25 +- 8.3."""

    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative rating the ladder ranks by: mu - 3 sigma (0 for a new player);
        it rises as a player wins and as their rating grows certain."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a finished game, as the ladder sees it: who is credited, which side."""

    player: str  # `human_key` or `ai_key`
    party: Party


def human_key(user_id: int) -> str:
    """The ladder's key of a human (by user id)."""
    return f"{HUMAN_PREFIX}{user_id}"


def ai_key(spec: str) -> str:
    """The ladder's key of an AI strength (by the agent spec it plays)."""
    return f"{AI_PREFIX}{spec}"


def user_of(player: str) -> int | None:
    """The user id of a human's key; None for an AI's."""
    return int(player[len(HUMAN_PREFIX) :]) if player.startswith(HUMAN_PREFIX) else None


def spec_of(player: str) -> str | None:
    """The agent spec of an AI's key; None for a human's."""
    return player[len(AI_PREFIX) :] if player.startswith(AI_PREFIX) else None


def ai_label(spec: str, strengths: Mapping[str, str]) -> str:
    """An AI strength as players know it: "AI: strong (belief-ismcts:seconds=2)" when
    `strengths` (strength -> spec, the bot's configuration) names the spec, else
    "AI: <spec>" (a spec the configuration no longer uses)."""
    names = [name for name, known in strengths.items() if known == spec]
    return f"AI: {names[0]} ({spec})" if names else f"AI: {spec}"


def rate(
    seats: Sequence[RatedSeat], winner: Party, ratings: Mapping[str, Rating]
) -> dict[str, Rating]:
    """The new ratings of one finished game's players (a player missing from `ratings`
    starts new).

    Each seat is one member of its side's team. A player who holds several seats (one AI
    strength filling three) gains the evidence of each: the changes of its seats' means
    add up, and so do the precisions (1/sigma^2) they gain. A player with one seat (every
    human) gets exactly openskill's update. A game in which one player held every seat
    (the AI against itself) says nothing of anyone's skill: {} (nobody changes).
    """
    players = {s.player for s in seats}
    if len(players) < 2:
        return {}
    sides = (Party.LIBERAL, Party.FASCIST)
    teams = [[s for s in seats if s.party is side] for side in sides]
    if not all(teams):
        raise ValueError("A finished game has seats on both sides.")
    before = {p: ratings.get(p, Rating()) for p in players}
    model_teams = [
        [MODEL.rating(mu=before[s.player].mu - START_MU, sigma=before[s.player].sigma) for s in t]
        for t in teams
    ]
    ranks: list[float] = [0.0 if side is winner else 1.0 for side in sides]
    after: list[list[PlackettLuceRating]] = MODEL.rate(model_teams, ranks=ranks)
    moved = dict.fromkeys(players, 0.0)
    precision = dict.fromkeys(players, 0.0)
    for team, new_team in zip(teams, after, strict=True):
        for seat, new in zip(team, new_team, strict=True):
            old = before[seat.player]
            widened = old.sigma**2 + MODEL.tau**2  # openskill widens sigma by tau first
            moved[seat.player] += new.mu + START_MU - old.mu
            precision[seat.player] += 1 / new.sigma**2 - 1 / widened
    return {
        p: Rating(
            mu=before[p].mu + moved[p],
            sigma=math.sqrt(1 / (1 / (before[p].sigma ** 2 + MODEL.tau**2) + precision[p])),
        )
        for p in players
    }


def ladder(
    games: Iterable[tuple[Sequence[RatedSeat], Party]],
    start: Mapping[str, Rating] | None = None,
) -> dict[str, Rating]:
    """Every player's rating after `games` (seats and winner each), in order, from `start`
    (default: nobody rated yet)."""
    ratings = dict(start or {})
    for seats, winner in games:
        ratings.update(rate(seats, winner, ratings))
    return ratings


__all__ = [
    "AI_PREFIX",
    "HUMAN_PREFIX",
    "MODEL",
    "START_MU",
    "START_SIGMA",
    "RatedSeat",
    "Rating",
    "ai_key",
    "ai_label",
    "human_key",
    "ladder",
    "rate",
    "spec_of",
    "user_of",
]
