"""A bot-only game narrated for spectators: public events while it runs, the reveal after.

This is the synchronous terminal demo; the async game session will drive the same
agents and narration for Discord channels.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import TextIO

from agents.registry import make_agent
from engine import Game, Variant
from engine import events as ev

from .narrate import narrate

BOT_NAMES = ("Ada", "Boris", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Juno")
AGENTS = ("random", "selfish")  # the agents a demo may seat (more as they land)
# Hidden events shown once the game is over, so spectators see what really happened.
_REVEALED = (ev.PoliciesDrawn, ev.PolicyDiscarded, ev.PolicyPeeked, ev.InvestigationResult)


def play_demo(
    players: int = 7,
    seed: int | None = None,
    *,
    agent: str = "selfish",
    variant: Variant | None = None,
    out: TextIO,
    delay: float = 0.0,
) -> Game:
    """Play one bot-only game, writing what a spectator may see to `out`, then the reveal."""
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    game = Game(players, seed=seed, variant=variant or Variant())
    names = [f"{BOT_NAMES[s]} (seat {s})" for s in range(players)]
    seats = [make_agent(agent, s, seed * 31 + s) for s in range(players)]
    print(f"Seed {seed}. Players: {', '.join(names)}.", file=out)
    _show(game.events, names, out, delay)
    while not game.is_over:
        for seat in game.awaiting():  # during a vote, every living player is asked
            _show(game.apply(seats[seat].act(game.view(seat))), names, out, delay)
    print("\n--- The reveal ---", file=out)
    for seat, role in enumerate(game.roles):
        print(f"{names[seat]}: {role.value.capitalize()}", file=out)
    for event in game.events:
        if isinstance(event, _REVEALED):
            line = narrate(event, names)
            if line:
                print(f"  {line}", file=out)
    return game


def _show(events: Sequence[ev.Event], names: Sequence[str], out: TextIO, delay: float) -> None:
    for event in events:
        if not event.visible_to(None):  # a spectator sees public events only
            continue
        line = narrate(event, names)
        if line:
            print(line, file=out, flush=True)
            if delay:
                time.sleep(delay)
