"""The terminal demo: a real bot-only game, spectators see public events only."""

from __future__ import annotations

import io

import pytest

from bot import cli
from bot.demo import BOT_NAMES, play_demo
from bot.narrate import narrate
from engine import Policy, Variant
from engine import events as ev

REVEAL = "--- The reveal ---"


@pytest.mark.parametrize("players", range(5, 11))
def test_demo_plays_a_full_game_and_narrates_only_public_events(players: int) -> None:
    out = io.StringIO()
    game = play_demo(players, seed=players, out=out)
    assert game.is_over
    text = out.getvalue()
    live, reveal = text.split(REVEAL)
    shown = [line for line in live.splitlines()[1:] if line]
    public = [
        line
        for e in game.events
        if e.visible_to(None) and (line := narrate(e, _names(players))) is not None
    ]
    assert shown == public
    # The reveal names every role only after the game is over.
    for seat, role in enumerate(game.roles):
        assert f"(seat {seat}): {role.value.capitalize()}" in reveal
        assert f"(seat {seat}): {role.value.capitalize()}" not in live


def _names(players: int) -> list[str]:
    return [f"{BOT_NAMES[s]} (seat {s})" for s in range(players)]


def test_demo_is_reproducible_from_its_seed() -> None:
    first, second = io.StringIO(), io.StringIO()
    play_demo(7, seed=42, out=first, variant=Variant("rebalanced"))
    play_demo(7, seed=42, out=second, variant=Variant("rebalanced"))
    assert first.getvalue() == second.getvalue()


def test_private_events_are_narrated_with_their_secret() -> None:
    names = ["A", "B"]
    line = narrate(ev.PoliciesDrawn(0, (Policy.LIBERAL, Policy.FASCIST, Policy.FASCIST)), names)
    assert line == "A draws L F F."


def test_shbot_without_token_runs_a_demo(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "No DISCORD_TOKEN set" in out
    assert " win: " in out and REVEAL in out


def test_shbot_demo_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--players", "5", "--seed", "9", "--speed", "fast"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Seed 9.") and "5 players" in out


def test_shbot_rejects_a_bad_player_count() -> None:
    with pytest.raises(SystemExit):
        cli.main(["demo", "--players", "11"])
