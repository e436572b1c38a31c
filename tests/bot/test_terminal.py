"""Playing in the terminal: numbered prompts, bad input asked again with a reason, the
player's private information shown to them only, claims offered, end of input handled."""

from __future__ import annotations

import io
from collections.abc import Callable

from bot.demo import play_terminal
from bot.narrate import narrate
from engine import Claim
from engine import events as ev

REVEAL = "\nThe reveal\n"


def reader(bad: list[str], then: Callable[[], str] = lambda: "1") -> Callable[[str], object]:
    """Answers `bad` lines first, then `then()` for every question."""
    lines = list(bad)
    asked: list[str] = []

    async def read_line(prompt: str) -> str:
        asked.append(prompt)
        return lines.pop(0) if lines else then()

    read_line.asked = asked  # type: ignore[attr-defined]
    return read_line


async def test_a_local_player_plays_a_whole_game_with_numbered_choices() -> None:
    out = io.StringIO()
    read_line = reader(["", "x", "0", "99"])
    session = await play_terminal(5, seat=2, seed=4, out=out, read_line=read_line)  # type: ignore[arg-type]
    game = session.game
    assert game.is_over
    text = out.getvalue()
    live, reveal = text.split(REVEAL)
    assert "Seed" not in live and "Seed 4 " in reveal  # the seed would tell every role
    # Bad input was refused with a reason, then the question was asked again.
    assert live.count("Type a number from 1 to") == 4
    my_moves = [a for a in game.actions if a.seat == 2 and not isinstance(a, Claim)]
    assert my_moves and session.seats[2].user_id == 1 and not session.seats[2].is_ai
    # The player saw their own secrets, and nobody else's.
    labels = session.table.labels
    mine = [e for e in game.events if e.audience == frozenset({2})]
    others = [e for e in game.events if e.audience is not None and 2 not in e.audience]
    assert isinstance(mine[0], ev.RoleDealt)
    for event in mine:
        line = narrate(event, labels)
        assert line is not None and f"(private) {line}" in live
    for event in others:
        line = narrate(event, labels)
        assert line is None or line not in live
    # Claims were offered after the player's sessions, with the option to stay silent.
    if any(isinstance(e, (ev.PoliciesDrawn, ev.PoliciesReceived)) for e in mine):
        assert "Say nothing" in live


async def test_end_of_input_hands_the_seat_to_an_ai_and_the_game_finishes() -> None:
    def closed() -> str:
        raise EOFError

    out = io.StringIO()
    session = await play_terminal(6, seat=0, seed=9, out=out, read_line=reader([], closed))  # type: ignore[arg-type]
    assert session.game.is_over
    assert "Input closed: an AI plays your seat from now on." in out.getvalue()
    assert session.seats[0].is_ai and session.seats[0].user_id == 1
