"""Play one complete game with agents, synchronously: the loop the arena runs.

Each seat gets its own agent, built from a spec with `agents.registry.make_agent`, and is
only ever shown `game.view(seat)`. The loop:

- asks the seats in `game.awaiting()` for their action; during a vote every living seat
  is asked, and all ballots are chosen from views taken before any is applied (the vote
  is simultaneous: nobody sees who voted first);
- after every applied action (claims included) offers each living seat whose
  `game.legal_claims(seat)` is non-empty `agent.claim(view)`, so claims come right after
  a session, a peek or an investigation; a seat that stays silent is asked again after
  the next action while its window stays open (the table has moved on, it may speak now).

Nothing else happens per step: no copies of the game, no extra views.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine import Action, Game, GameRecord, Party, Role, Variant, WinReason
from engine.variants import STANDARD

from .base import AgentBase
from .registry import make_agent


@dataclass(frozen=True, slots=True)
class SeatTiming:
    """Wall-clock time one seat's agent spent deciding (actions and claims) in a game."""

    decisions: int  # calls to `act`
    claim_offers: int  # calls to `claim`
    seconds: float  # total time inside `act` and `claim`
    max_seconds: float  # the slowest single call


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one agent game and how to replay it."""

    record: GameRecord
    winner: Party
    win_reason: WinReason
    roles: tuple[Role, ...]
    specs: tuple[str, ...]  # per seat, as given
    agents: tuple[str, ...]  # per seat, the agent's name (e.g. "selfish")
    timings: tuple[SeatTiming, ...]  # per seat
    claims: int  # claims made during the game

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.roles)

    def won(self, seat: int) -> bool:
        """Whether `seat` was on the winning team."""
        return self.roles[seat].party is self.winner


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of a seat's agent, derived from the game's seed.

    Not the game seed itself: an agent must not be able to re-deal the roles from it.
    """
    return random.Random(f"agent-seed:{game_seed}:{seat}").getrandbits(63)


class _Seat:
    """One seat's agent with its timing counters."""

    __slots__ = ("agent", "claim_offers", "decisions", "max_seconds", "seconds")

    def __init__(self, agent: AgentBase) -> None:
        self.agent = agent
        self.decisions = 0
        self.claim_offers = 0
        self.seconds = 0.0
        self.max_seconds = 0.0

    def timed(self, elapsed: float) -> None:
        self.seconds += elapsed
        if elapsed > self.max_seconds:
            self.max_seconds = elapsed

    def timing(self) -> SeatTiming:
        return SeatTiming(self.decisions, self.claim_offers, self.seconds, self.max_seconds)


def play_game(
    specs: Sequence[str],
    *,
    seed: int,
    variant: Variant = STANDARD,
    agents: Mapping[int, AgentBase] | None = None,
) -> GameResult:
    """Play a complete game, one agent per seat (`specs[seat]`), dealt from `seed`.

    `agents` gives seats whose agent the caller built (analysis, e.g. the bound in
    bench/liberal_bound.py); their spec is then only a label. Raises ValueError for an
    unknown or unavailable agent, and `engine.IllegalAction` if an agent answers with
    something illegal (an agent bug).
    """
    game = Game(len(specs), variant=variant, seed=seed)
    built = agents or {}
    seats = [
        _Seat(built[seat] if seat in built else make_agent(spec, seat, agent_seed(seed, seat)))
        for seat, spec in enumerate(specs)
    ]
    offers = _ClaimOffers(seats)
    claims = 0
    clock = time.perf_counter
    while not game.is_over:
        chosen: list[tuple[int, Action]] = []
        for seat in game.awaiting():  # one seat, or every living seat that has not voted
            player = seats[seat]
            view = game.view(seat)
            start = clock()
            chosen.append((seat, player.agent.act(view)))
            player.timed(clock() - start)
            player.decisions += 1
        for seat, action in chosen:
            if action.seat != seat:
                raise ValueError(f"{seats[seat].agent.name} at seat {seat} answered {action}.")
            game.apply(action)
            claims += offers.offer(game)
            if game.is_over:
                break
    assert game.winner is not None and game.win_reason is not None
    return GameResult(
        record=GameRecord.of(game),
        winner=game.winner,
        win_reason=game.win_reason,
        roles=game.roles,
        specs=tuple(specs),
        agents=tuple(s.agent.name for s in seats),
        timings=tuple(s.timing() for s in seats),
        claims=claims,
    )


def _speaks(agent: AgentBase) -> bool:
    """Whether the agent can ever claim: AgentBase's own `claim`/`speak` stay silent."""
    kind = type(agent)
    return kind.claim is not AgentBase.claim or kind.speak is not AgentBase.speak


class _ClaimOffers:
    """Offers claims to the seats whose window is open, after each applied action.

    Which seats may claim changes only when the game's (immutable) open windows are
    replaced or someone dies, so the scan of every seat is redone only then. Agents that
    cannot speak (see `_speaks`) are not asked at all: their answer is always None.
    """

    __slots__ = ("_alive", "_open", "_seats", "seats")

    def __init__(self, seats: Sequence[_Seat]) -> None:
        self.seats = seats
        self._open: object = None
        self._alive = -1
        self._seats: tuple[int, ...] = ()

    def _claimants(self, game: Game) -> tuple[int, ...]:
        if game.open_claims is not self._open or game.alive_count != self._alive:
            self._open, self._alive = game.open_claims, game.alive_count
            self._seats = tuple(
                s
                for s in range(game.players)
                if _speaks(self.seats[s].agent) and game.legal_claims(s)
            )
        return self._seats

    def offer(self, game: Game) -> int:
        """Offer every open window a claim; return how many claims were made.

        A claim is itself an applied action, so after each one the offers start again
        (the others may want to answer it). Each claim closes a window, so this ends.
        """
        made = 0
        clock = time.perf_counter
        while not game.is_over:
            claimed = False
            for seat in self._claimants(game):
                player = self.seats[seat]
                view = game.view(seat)
                start = clock()
                claim = player.agent.claim(view)
                player.timed(clock() - start)
                player.claim_offers += 1
                if claim is not None:
                    if claim.seat != seat:
                        raise ValueError(f"{player.agent.name} at seat {seat} claimed {claim}.")
                    game.apply(claim)
                    made += 1
                    claimed = True
                    break
            if not claimed:
                break
        return made
