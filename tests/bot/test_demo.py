"""The terminal demo on top of the session: a real bot-only game, spectators see public
events only, then the reveal; the game is stored like every other."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from bot.demo import ai_summary, check_agent, play_demo
from bot.render.story import Teller, story_lines
from bot.session import GameSession
from bot.storage import Storage
from engine import Variant
from engine import events as ev

REVEAL = "\nThe reveal\n"


@pytest.mark.parametrize("players", range(5, 11))
def test_demo_plays_a_full_game_and_narrates_only_public_events(players: int) -> None:
    out = io.StringIO()
    session = play_demo(players, seed=players, out=out)
    game = session.game
    assert game.is_over
    live, reveal = out.getvalue().split(REVEAL)
    header, *shown = live.splitlines()
    assert header.startswith("Game #1. Players: Ada (seat 0), ")
    # The seed decides every role and the deck: it is told after the reveal, not before.
    assert "Seed" not in live
    assert reveal.rstrip().endswith(f"Seed {players} (replay it with --seed {players}).")
    reveal = reveal.rstrip().rsplit("\n", 1)[0]
    labels = session.table.labels
    # The public story, one block per round: a header, then the round's events indented.
    teller = Teller([s.name for s in session.seats])
    public = story_lines([e for e in game.events if e.audience is None], teller)
    talk = [line for line in shown if "💬" in line]  # what AI seats say (agents.talk)
    assert [line for line in shown if line not in talk] == public
    assert all(line.strip().startswith("💬 ") for line in talk)
    rounds = sum(isinstance(e, ev.PresidentialCandidate) for e in game.events)
    headers = [line for line in shown if line.startswith("Round ")]
    assert len(headers) == rounds and headers[-1].startswith(f"Round {rounds} · ")
    events = [line for line in shown[2:-2] if line and line not in headers and line not in talk]
    assert all(line.startswith("  ") for line in events)
    assert "(seat " not in "\n".join(shown)  # names alone: the header line lists the seats
    # Every role is named in the reveal, none before it.
    teams = {"hitler": "Hitler:", "fascist": "Fascists:", "liberal": "Liberals:"}
    lines = {line.strip().split(":")[0] + ":": line for line in reveal.splitlines()}
    for seat, role in enumerate(game.roles):
        assert labels[seat] in lines[teams[role.value]]
    for word in teams.values():
        assert word not in live


def test_demo_is_reproducible_from_its_seed() -> None:
    first, second = io.StringIO(), io.StringIO()
    play_demo(7, seed=42, out=first, variant=Variant("rebalanced"))
    play_demo(7, seed=42, out=second, variant=Variant("rebalanced"))
    assert first.getvalue() == second.getvalue()
    assert "7 players, rebalanced rules" in first.getvalue()


async def test_the_demo_game_is_stored_and_replays(tmp_path: Path) -> None:
    from bot.demo import run_demo

    path = tmp_path / "demo.db"
    session = await run_demo(6, seed=3, agent="random", out=io.StringIO(), db_path=path)
    async with await Storage.open(path) as store:
        stored = await store.load_game(session.game_id)
    assert stored.status == "finished" and stored.options["demo"] is True
    assert stored.record.replay().events == session.game.events
    assert all(seat.agent == "random" and seat.user_id is None for seat in stored.seats)


def test_agent_specs_are_checked() -> None:
    assert check_agent("selfish") == "selfish"
    with pytest.raises(ValueError, match="Unknown agent"):
        check_agent("genius")


async def test_pictures_that_cannot_be_written_are_said_once_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    from bot.demo import run_demo

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    out = io.StringIO()
    session = await run_demo(5, seed=2, agent="random", out=out, images=blocker / "pics")
    assert session.game.is_over
    text = out.getvalue()
    assert text.count(f"Cannot write pictures to {blocker / 'pics'}") == 1
    assert REVEAL in text and "Pictures:" not in text


def test_the_ai_summary_tells_ballots_apart() -> None:
    def summary(searches: list[int], ballots: list[int], fallbacks: int = 0) -> str:
        session = SimpleNamespace(
            ai_iterations=searches, ai_ballot_iterations=ballots, fallbacks=fallbacks
        )
        return ai_summary(cast(GameSession, session))

    # Four ballots in five at a full table: their cap must not stand for every search.
    assert summary([9000, 8000, 30000], [200] * 12) == (
        "AI players: searches of 9000 iterations (median); ballots 200, no fallback."
    )
    assert summary([], [200], 2) == "AI players: ballots 200, 2 fallback(s)."
    assert summary([], []) == "AI players: no searches, no fallback."
