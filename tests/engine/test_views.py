"""Information sets: no view ever shows a seat (or a spectator) more than it may know.

Set ENGINE_FUZZ_SCALE (default 1) to multiply the number of random games.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import random

import pytest

from engine import (
    REBALANCED,
    STANDARD,
    Discard,
    Enact,
    Game,
    Investigate,
    Party,
    Phase,
    PlayerView,
    Policy,
    Role,
    Variant,
    Vote,
)
from engine import events as ev
from tests.engine.helpers import (
    FIVE_FASCIST_DECK,
    clone,
    fixed_game,
    govern,
    play,
    random_choices,
)

SCALE = float(os.environ.get("ENGINE_FUZZ_SCALE", "1"))
GAMES_PER_CONFIG = max(1, int(60 * SCALE))  # x 12 configurations = 720 games
CONFIGS = [(n, v) for n in range(5, 11) for v in (STANDARD, REBALANCED)]

PRIVATE_KINDS = {
    ev.RoleDealt,
    ev.PoliciesDrawn,
    ev.PolicyDiscarded,
    ev.PoliciesReceived,
    ev.PolicyPeeked,
    ev.InvestigationResult,
}
# Fields that may differ between two seats' views (everything else is public).
PERSONAL = {
    "seat",
    "role",
    "known_roles",
    "my_vote",
    "hand",
    "legal_actions",
    "events",
    "legal_claims",
}
PUBLIC_FIELDS = [f.name for f in dataclasses.fields(PlayerView) if f.name not in PERSONAL]


def team_knowledge(roles: tuple[Role, ...], seat: int) -> tuple[Role | None, ...]:
    """What RULES.md lets `seat` know from the deal: itself plus its teammates."""
    me = roles[seat]
    sees_team = me is Role.FASCIST or (me is Role.HITLER and len(roles) <= 6)
    return tuple(
        r if s == seat or (sees_team and r is not Role.LIBERAL) else None
        for s, r in enumerate(roles)
    )


def test_exactly_the_six_private_event_kinds_are_private() -> None:
    kinds = {
        cls
        for _, cls in inspect.getmembers(ev, inspect.isclass)
        if issubclass(cls, ev.Event) and cls.kind != "event"
    }
    assert {k for k in kinds if issubclass(k, ev.PrivateEvent)} == PRIVATE_KINDS
    # Public events declare no audience; none of them carries a role or a tile list,
    # except the final reveal, the revealed ballots and claims (what a player *says*,
    # chosen by them, never read from the hidden state).
    claims = {ev.PresidentClaimed, ev.ChancellorClaimed, ev.PeekClaimed, ev.InvestigationClaimed}
    for kind in kinds - PRIVATE_KINDS - {ev.GameEnded, ev.ElectionResult} - claims:
        names = {f.name for f in dataclasses.fields(kind)}
        assert not names & {"role", "roles", "tiles", "party", "known", "votes", "drew"}, kind
    assert {f.name for f in dataclasses.fields(ev.VoteCast)} == {"voter", "changed"}


@dataclasses.dataclass(frozen=True, slots=True)
class Before:
    """What `check_step` needs of the state before an action."""

    president: int
    chancellor: int | None
    hand: tuple[Policy, ...]
    votes: dict[int, bool]
    awaiting: list[int]

    @classmethod
    def of(cls, game: Game) -> Before:
        return cls(
            game.president, game.chancellor, tuple(game.hand), dict(game.votes), game.awaiting()
        )


class Watcher:
    """Checks every seat's view and the spectator's after each step of one game."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.roles = game.roles
        n = game.players
        self.knowledge = [team_knowledge(game.roles, s) for s in range(n)]
        self.visible: list[list[ev.Event]] = [[] for _ in range(n + 1)]  # n: spectator
        self.note(game.events)
        dealt = [e for e in game.events if isinstance(e, ev.RoleDealt)]
        assert [e.seat for e in dealt] == list(range(n))
        for e in dealt:
            assert e.role is game.roles[e.seat]
            known = [None] * n
            for s, r in e.known:
                known[s] = r
            known[e.seat] = e.role
            assert tuple(known) == self.knowledge[e.seat]

    def note(self, events: list[ev.Event]) -> None:
        for event in events:
            audience = event.audience
            if type(event) in PRIVATE_KINDS:
                assert audience == frozenset({event.seat})
            else:
                assert audience is None, event
            for seat, seen in enumerate(self.visible):
                if audience is None or seat in audience:
                    seen.append(event)

    def check_step(self, before: Before, action: object, events: list[ev.Event]) -> None:
        """Private events of this step went to the right seat, with the right content."""
        game = self.game
        for event in events:
            if event.audience is None and not isinstance(event, ev.ElectionResult):
                continue
            if isinstance(event, ev.PoliciesDrawn):
                assert event.seat == game.president and game.phase is Phase.PRESIDENT_DISCARD
                assert event.tiles == tuple(game.hand)
            elif isinstance(event, ev.PolicyDiscarded):
                assert isinstance(action, Discard | Enact) and event.seat == action.seat
                if isinstance(action, Discard):
                    assert event.seat == before.president and event.policy is action.policy
                else:
                    assert event.seat == before.chancellor
                    rest = list(before.hand)
                    rest.remove(action.policy)
                    assert [event.policy] == rest
            elif isinstance(event, ev.PoliciesReceived):
                assert isinstance(action, Discard)
                assert event.seat == game.chancellor == before.chancellor
                assert event.tiles == tuple(game.hand)
            elif isinstance(event, ev.PolicyPeeked):
                assert isinstance(action, Enact) and event.seat == before.president
                assert event.tiles == tuple(game.draw_pile[:3])
            elif isinstance(event, ev.InvestigationResult):
                assert isinstance(action, Investigate) and event.seat == action.seat
                assert event.target == action.target
                assert event.party is game.roles[action.target].party
            elif isinstance(event, ev.ElectionResult):
                # Ballots come out only with the last living player's vote.
                assert isinstance(action, Vote) and before.awaiting == [action.seat]
                assert event.votes == tuple(
                    ({**before.votes, action.seat: action.ja}).get(s) for s in range(game.players)
                )

    def check_views(self) -> None:
        game = self.game
        over = game.is_over
        spectator = game.spectator_view()
        assert spectator.seat is None and spectator.role is None
        assert spectator.hand == () and spectator.my_vote is None
        assert spectator.legal_actions == ()
        if over:
            assert spectator.known_roles == self.roles
            assert spectator.events == tuple(game.events)
        else:
            assert spectator.known_roles == (None,) * game.players
            assert spectator.events == tuple(self.visible[-1])
        public = [getattr(spectator, name) for name in PUBLIC_FIELDS]
        holder = None
        if game.phase is Phase.PRESIDENT_DISCARD:
            holder = game.president
        elif game.phase in (Phase.CHANCELLOR_ENACT, Phase.VETO_REPLY):
            holder = game.chancellor
        for seat in range(game.players):
            view = game.view(seat)
            assert view.seat == seat and view.role is self.roles[seat]
            if over:
                assert view.known_roles == self.roles
                assert view.events == tuple(game.events)
            else:
                assert view.known_roles == self.knowledge[seat]
                assert view.events == tuple(self.visible[seat])
            assert view.hand == (tuple(game.hand) if seat == holder else ())
            assert view.my_vote is game.votes.get(seat)
            assert view.legal_actions == tuple(game.legal_actions(seat))
            assert view.legal_claims == tuple(game.legal_claims(seat))
            assert [getattr(view, name) for name in PUBLIC_FIELDS] == public

    def check_ballots_hidden(self) -> None:
        """Flipping every ballot cast so far changes nothing anyone else can see."""
        game = self.game
        flipped = clone(game)
        flipped.votes = {s: not b for s, b in game.votes.items()}
        assert flipped.spectator_view() == game.spectator_view()
        for seat in range(game.players):
            mine, theirs = game.view(seat), flipped.view(seat)
            if seat in game.votes:
                assert dataclasses.replace(theirs, my_vote=mine.my_vote, legal_actions=()) == (
                    dataclasses.replace(mine, legal_actions=())
                )
            else:
                assert theirs == mine


@pytest.mark.parametrize(("players", "variant"), CONFIGS, ids=[f"{n}-{v.name}" for n, v in CONFIGS])
def test_views_never_leak_in_random_games(players: int, variant: Variant) -> None:
    base = players * 999_983 + (variant is REBALANCED) * 31
    for index in range(GAMES_PER_CONFIG):
        seed = base + index
        game = Game(players, variant=variant, seed=seed)
        rng = random.Random(seed)
        watcher = Watcher(game)
        watcher.check_views()
        for action in random_choices(game, rng):
            before = Before.of(game)
            events = game.apply(action)
            watcher.note(events)
            watcher.check_step(before, action, events)
            watcher.check_views()
            if game.phase is Phase.VOTE and game.votes and rng.random() < 0.02:
                watcher.check_ballots_hidden()
        assert game.is_over


def test_private_events_in_a_scripted_game() -> None:
    # 9 players: seat 0 investigates; seat 2 is Hitler.
    game = fixed_game("LFHLFLFLL", FIVE_FASCIST_DECK)
    events = play(game, "nominate 1", "ja")
    drawn = [e for e in events if isinstance(e, ev.PoliciesDrawn)]
    assert drawn == [ev.PoliciesDrawn(0, tuple(game.hand))]
    events = play(game, "discard L")
    assert [e for e in events if type(e) in PRIVATE_KINDS] == [
        ev.PolicyDiscarded(0, game.discard_pile[-1]),
        ev.PoliciesReceived(1, tuple(game.hand)),
    ]
    assert game.view(1).hand == tuple(game.hand) and game.view(0).hand == ()
    assert ev.PoliciesReceived(1, tuple(game.hand)) not in game.view(0).events
    events = play(game, "enact F", "investigate 2")
    result = ev.InvestigationResult(0, 2, Party.FASCIST)
    assert result in events
    assert result in game.view(0).events
    assert all(result not in game.view(s).events for s in range(1, 9))
    assert result not in game.spectator_view().events
    assert ev.PlayerInvestigated(0, 2) in game.spectator_view().events


def test_peek_is_seen_only_by_the_president() -> None:
    game = fixed_game("LFHLL", FIVE_FASCIST_DECK)
    for chancellor in (1, 3):
        govern(game, chancellor, "F")
    events = govern(game, 4, "F")
    (peek,) = [e for e in events if isinstance(e, ev.PolicyPeeked)]
    assert peek.seat == 2
    assert [s for s in range(5) if peek in game.view(s).events] == [2]
    assert peek not in game.spectator_view().events


def test_everything_is_revealed_when_the_game_ends() -> None:
    game = fixed_game("LFHLL", FIVE_FASCIST_DECK)
    for chancellor in (1, 3, 4):
        govern(game, chancellor, "F")
    assert game.view(0).known_roles == (Role.LIBERAL, None, None, None, None)
    play(game, "nominate 2", "ja")
    assert game.is_over
    for view in [game.view(s) for s in range(5)] + [game.spectator_view()]:
        assert view.known_roles == game.roles
        assert view.events == tuple(game.events)
        assert view.winner is Party.FASCIST
        assert any(isinstance(e, ev.PolicyDiscarded) for e in view.events)


def test_votes_stay_hidden_until_the_last_ballot() -> None:
    game = fixed_game("LFHLFLL")
    play(game, "nominate 3")
    for seat, ja in zip(range(6), (True, False, True, True, False, False), strict=True):
        game.apply(Vote(seat, ja))
        for view in [game.view(s) for s in range(7)] + [game.spectator_view()]:
            assert not any(isinstance(e, ev.ElectionResult) for e in view.events)
            assert view.voted == tuple(range(seat + 1))
            assert view.my_vote is (game.votes.get(view.seat) if view.seat is not None else None)
    game.apply(Vote(6, True))
    results = [e for e in game.spectator_view().events if isinstance(e, ev.ElectionResult)]
    assert results[0].votes == (True, False, True, True, False, False, True)


def test_views_carry_the_deck_make_up_of_every_variant() -> None:
    custom = Variant("custom", liberal_tiles=7, fascist_tiles=10)
    for variant, players, expected in (
        (STANDARD, 7, (6, 11)),
        (REBALANCED, 6, (6, 11)),  # one of the 11 Fascist tiles starts on the board
        (REBALANCED, 7, (6, 10)),
        (custom, 5, (7, 10)),
    ):
        game = Game(players, variant=variant, seed=3)
        for view in (game.spectator_view(), game.view(0)):
            assert (view.liberal_tiles, view.fascist_tiles) == expected
        assert sum(expected) == game.tiles_in_play()
