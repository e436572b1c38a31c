"""What AI seats say (agents.talk): the public record only, never the hidden roles."""

from __future__ import annotations

import random

import pytest

from agents.belief import Belief
from agents.talk import TableTalk, reasons_against
from engine import Game, Policy, Role
from engine import events as ev
from engine.chance import FixedChance

NAMES = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus"]
DECK = [Policy.LIBERAL, Policy.FASCIST, Policy.LIBERAL, Policy.FASCIST] * 3 + [Policy.FASCIST] * 5
L, F, H = Role.LIBERAL, Role.FASCIST, Role.HITLER


Script = list[tuple[int | None, int]]  # (claimant, or None for a decision; option index)


def played(roles: list[Role], seed: int, script: Script | None = None) -> tuple[Game, Script]:
    """A 7-player game with these roles and a fixed deck, up to two Fascist policies
    (from the third, whether the Chancellor is Hitler becomes public): random legal moves
    from `seed`, every claim made, or the moves of `script`."""
    game = Game(7, chance=FixedChance(roles, 0, DECK))
    rng = random.Random(seed)
    moves: Script = []
    while not game.is_over and game.fascist_policies < 2 and len(moves) < 80:
        if script is not None:
            if len(moves) == len(script):
                break
            who, index = script[len(moves)]
        else:
            who = next((s for s in range(7) if game.legal_claims(s)), None)
            index = -1
        seat = game.awaiting()[0]
        options = game.legal_claims(who) if who is not None else game.legal_actions(seat)
        if index < 0:
            index = rng.randrange(len(options))
        game.apply(options[index])
        moves.append((who, index))
    return game, moves


def talk_of(game: Game, speakers: list[int]) -> tuple[list[tuple[int, str]], list[str]]:
    talk = TableTalk(game.setup, speakers)
    said: list[tuple[int, str]] = []
    for event in game.events:
        if isinstance(event, ev.GameEnded):
            break
        talk.hear([event])
        if isinstance(event, ev.PolicyEnacted):
            said += talk.remarks(NAMES)
    answers = [talk.ask(seat, NAMES) or "" for seat in speakers]
    return said, answers


def public(game: Game) -> list[ev.Event]:
    return [e for e in game.events if e.visible_to(None) and not isinstance(e, ev.GameEnded)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seats_words_depend_on_public_events_and_its_own_secrets_only(seed: int) -> None:
    # Seat 0 is a Liberal in both games; seat 1 a Fascist in both, whose team differs
    # (private to it: a Fascist speaks its cover, which rests on public events only).
    first = [L, F, H, L, L, F, L]
    second = [L, F, L, H, F, L, L]
    game, script = played(first, seed)
    again, _ = played(second, seed, script)
    assert public(game) == public(again)  # the same public history
    # ...and the same private information for seat 0 (a Liberal sees only its hands).
    own = [e for e in game.events if not e.visible_to(None) and e.visible_to(0)]
    assert own == [e for e in again.events if not e.visible_to(None) and e.visible_to(0)]
    said, answers = talk_of(game, [0, 1])
    assert all(answers)  # both answer /ask
    assert (said, answers) == talk_of(again, [0, 1])
    # The test has teeth: from its own information set (its team), the Fascist reads the
    # two tables differently; speaking from it would tell them apart.
    assert own_read(game, 1) != own_read(again, 1)


def own_read(game: Game, seat: int) -> object:
    belief = Belief(game.setup, seat)
    for event in game.events:
        if event.visible_to(seat) and not isinstance(event, ev.GameEnded):
            belief.update(event)
    return belief.marginals()


def test_every_ai_seat_speaks_its_cover() -> None:
    game, _ = played([L, F, H, L, L, F, L], 4)
    talk = TableTalk(game.setup, [0, 1])
    talk.hear(e for e in game.events if not isinstance(e, ev.GameEnded))
    fascist = talk.speakers[1]
    # The Fascist's words never rest on what it knows: its team.
    cover = fascist.belief.marginals()
    assert cover[2][2] < 0.99  # it does not "know" Hitler in its speech
    answer = talk.ask(1, NAMES)
    assert answer is not None and answer.startswith("I trust ")


def words(game: Game, seat: int) -> list[str | None]:
    """`seat`'s /ask answer after every event of the game."""
    talk = TableTalk(game.setup, [seat])
    answers: list[str | None] = []
    for event in game.events:
        if isinstance(event, ev.GameEnded):
            break
        talk.hear([event])
        answers.append(talk.ask(seat, NAMES))
    return answers


@pytest.mark.parametrize("seed", [1, 3, 7, 8, 9])  # games where seat 3 holds a hand
def test_a_seats_words_are_the_same_whatever_its_role(seed: int) -> None:
    """Seat 3 is a Liberal in one game and a Fascist in the other, with the same public
    history. A Fascist speaks its cover (the belief of a Liberal in its seat from the
    public record); had a Liberal spoken its own belief, its hands, peeks and checks in
    it, its words would differ from that cover once it held one: anyone replaying the
    public history through this code would know it Liberal (found by a secrets review).
    Its words are the cover's too, all game long."""
    liberal = [L, F, H, L, L, F, L]
    fascist = [L, F, H, F, L, L, L]
    game, script = played(liberal, seed)
    again, _ = played(fascist, seed, script)
    assert public(game) == public(again)
    held = [e for e in game.events if e.visible_to(3) and not e.visible_to(None)]
    assert any(not isinstance(e, ev.RoleDealt) for e in held)  # a hand, a peek or a check
    honest, cover = words(game, 3), words(again, 3)
    assert len(honest) > 10 and honest == cover


def test_reasons_name_what_the_table_saw() -> None:
    events: list[ev.Event] = [
        ev.PolicyHandPassed(president=0, chancellor=3),
        ev.PolicyEnacted(Policy.FASCIST, False, 0, 1),
        ev.PresidentClaimed(president=0, drew=(F_, L_, L_), passed=(L_, L_)),
        ev.ChancellorClaimed(chancellor=3, received=(L_, F_)),
    ]
    against = reasons_against(events, 3, NAMES)
    assert against[0] in (
        "enacted a Fascist policy though claiming a Liberal in hand",
        "tells a story about the hand that Ada denies",
    )
    assert "enacted a Fascist policy as Chancellor" in against
    assert "tells a story about the hand that Di denies" in reasons_against(events, 0, NAMES)


F_, L_ = Policy.FASCIST, Policy.LIBERAL


def test_at_most_two_ai_seats_speak_after_a_session_and_each_in_turn() -> None:
    game, _ = played([L, F, H, L, L, F, L], 5)
    seats = [0, 1, 2, 3, 4, 5]
    talk = TableTalk(game.setup, seats)
    turns: list[list[int]] = []
    for event in game.events:
        if isinstance(event, ev.GameEnded):
            break
        talk.hear([event])
        if isinstance(event, ev.PolicyEnacted):
            said = talk.remarks(NAMES)
            assert len(said) <= 2
            assert {seat for seat, _ in said} <= set(talk.turn())
            turns.append(talk.turn())
    # The turn goes round the AI seats, two at a time, by the public count of sessions.
    assert turns[:3] == [[0, 1], [2, 3], [4, 5]][: len(turns)]
    assert len(turns) >= 2
