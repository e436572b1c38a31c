"""The rules of Secret Hitler as a deterministic state machine.

`Game` holds the full (hidden) state. Callers ask `awaiting()` who must act,
`legal_actions(seat)` what they may do, and `apply(action)` to play it; `apply` returns
the events it caused, each tagged with its audience; `undo()` takes the last action
back. `view(seat)` is one seat's information set; agents and front-ends should only ever
see views. The rules themselves (seating, term limits, the vote, endings, powers) are
read from `engine.rules`, which the fast simulator shares.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from operator import attrgetter
from typing import Any

from . import events as ev
from . import rules
from .actions import (
    Action,
    CallSpecialElection,
    Claim,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    VetoReply,
    Vote,
    check_well_formed,
)
from .chance import Chance, Rewindable, SeededChance
from .claims import OpenClaims, claim_event
from .errors import (
    DuplicateVote,
    IllegalTarget,
    MalformedAction,
    NothingToUndo,
    NotYourTurn,
    TileNotInHand,
    VetoUnavailable,
    WrongPhase,
)
from .roles import Party, Phase, Policy, Power, Role, WinReason
from .variants import DRAW, STANDARD, VETO_AT, Setup, Variant
from .views import PlayerView


class _Undo:
    """What `Game.undo` needs to take one action back: the state before it.

    `state` holds every field an action may change: the `_VALUES` as they were and
    the containers packed (`_pack`); for a ballot that does not complete the vote, which changes one
    entry of `votes` alone, it is None and `ballot` is (seat, its ballot before or None).
    `chance` is the chance source's state before the first reshuffle the action caused
    (None if it caused none). A plain class: an entry is made for every action, and a
    frozen dataclass costs twice as much to build.
    """

    __slots__ = ("ballot", "chance", "events", "state")

    def __init__(
        self,
        events: int,
        state: tuple[Any, ...] | None,
        ballot: tuple[int, bool | None] | None = None,
    ) -> None:
        self.events = events  # len(Game.events) before the action
        self.state = state
        self.ballot = ballot
        self.chance: Any = None

    def __eq__(self, other: object) -> bool:  # for comparing whole games in tests
        if not isinstance(other, _Undo):
            return NotImplemented
        mine = (self.events, self.state, self.ballot, self.chance)
        return mine == (other.events, other.state, other.ballot, other.chance)

    __hash__ = None  # type: ignore[assignment]  # mutable: `chance` is set later


class Game:
    """One game of Secret Hitler: full state, legal actions, transitions, views.

    Construct with a seed (or any `Chance`); the role deal, first president and the
    opening shuffle happen at once and are reported in `events`.
    """

    def __init__(
        self,
        players: int,
        *,
        variant: Variant = STANDARD,
        seed: int | None = None,
        chance: Chance | None = None,
    ) -> None:
        self.setup: Setup = variant.setup(players)
        self.variant = variant
        if chance is None:
            seed = secrets.randbits(63) if seed is None else seed
            chance = SeededChance(seed)
        self.seed = seed
        self.chance = chance
        self.actions: list[Action] = []  # the move stack: every accepted action
        self.events: list[ev.Event] = []
        self._undo: list[_Undo] = []  # one entry per action, to take it back

        setup = self.setup
        role_pool = (
            [Role.LIBERAL] * setup.liberals + [Role.FASCIST] * setup.fascists + [Role.HITLER]
        )
        self.roles: tuple[Role, ...] = tuple(chance.deal_roles(role_pool))
        self.hitler = self.roles.index(Role.HITLER)
        self.president = chance.first_president(players)
        self.draw_pile: list[Policy] = chance.shuffle(
            [Policy.LIBERAL] * setup.liberal_tiles + [Policy.FASCIST] * setup.fascist_tiles
        )
        self.discard_pile: list[Policy] = []
        self.hand: list[Policy] = []  # the tiles held by the president or chancellor now
        self.phase = Phase.NOMINATE
        self.chancellor: int | None = None
        self.last_president: int | None = None  # of the last *elected* government
        self.last_chancellor: int | None = None
        self.special_election_caller: int | None = None
        self.election_tracker = 0
        self.liberal_policies = 0
        self.fascist_policies = setup.fascist_policies_at_start
        self.votes: dict[int, bool] = {}
        self.alive = [True] * players
        self.investigated: set[int] = set()
        self.not_hitler: set[int] = set()
        self.veto_refused = False  # the chancellor already proposed a veto this session
        self.open_claims = OpenClaims()
        self.winner: Party | None = None
        self.win_reason: WinReason | None = None

        self._emit(ev.GameStarted(players, variant.name, self.fascist_policies))
        for seat in range(players):
            self._emit(ev.RoleDealt(seat, self.roles[seat], self.known_roles(seat)))
        self._emit(ev.PresidentialCandidate(self.president))

    # --- queries --------------------------------------------------------------------

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.setup.players

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER

    @property
    def veto_unlocked(self) -> bool:
        """Whether chancellors may propose vetoes (five Fascist policies enacted)."""
        return rules.veto_unlocked(self.fascist_policies)

    @property
    def alive_count(self) -> int:
        """Number of living players."""
        return sum(self.alive)

    def living(self) -> list[int]:
        """Living seats in table order."""
        return rules.living(self.alive)

    def left_of(self, seat: int) -> int:
        """The first living seat after `seat` (which need not be alive)."""
        return rules.left_of(self.alive, seat)

    def known_roles(self, seat: int) -> tuple[tuple[int, Role], ...]:
        """Other seats' roles that `seat` knows from the deal (team knowledge)."""
        role = self.roles[seat]
        if role is Role.LIBERAL or (role is Role.HITLER and not self.setup.hitler_knows_fascists):
            return ()
        return tuple(
            (s, r) for s, r in enumerate(self.roles) if s != seat and r is not Role.LIBERAL
        )

    def term_limited(self) -> list[int]:
        """Seats that may not be nominated chancellor because of the last government."""
        return rules.term_limited(self.alive, self.last_president, self.last_chancellor)

    def eligible_chancellors(self) -> list[int]:
        """Seats the presidential candidate may nominate now."""
        return rules.eligible_chancellors(
            self.alive, self.president, self.last_president, self.last_chancellor
        )

    def awaiting(self) -> list[int]:
        """Seats whose decision the game is waiting for (several during a vote)."""
        phase = self.phase
        if phase is Phase.GAME_OVER:
            return []
        if phase is Phase.VOTE:
            return [s for s in self.living() if s not in self.votes]
        if phase is Phase.CHANCELLOR_ENACT:
            assert self.chancellor is not None
            return [self.chancellor]
        return [self.president]

    def legal_actions(self, seat: int) -> list[Action]:
        """Every distinct action `seat` may take now (empty if it need not act)."""
        if type(seat) is not int or not 0 <= seat < self.players:  # bool: not a seat
            return []
        phase = self.phase
        if phase is Phase.VOTE:
            if not self.alive[seat]:
                return []
            if seat in self.votes:  # a ballot may be changed until the last one is in
                return [Vote(seat, not self.votes[seat])]
            return [Vote(seat, True), Vote(seat, False)]
        if phase is Phase.GAME_OVER or seat not in self.awaiting():
            return []
        if phase is Phase.NOMINATE:
            return [Nominate(seat, c) for c in self.eligible_chancellors()]
        if phase is Phase.PRESIDENT_DISCARD:
            return [Discard(seat, p) for p in _distinct(self.hand)]
        if phase is Phase.CHANCELLOR_ENACT:
            options: list[Action] = [Enact(seat, p) for p in _distinct(self.hand)]
            if self.veto_unlocked and not self.veto_refused:
                options.append(ProposeVeto(seat))
            return options
        if phase is Phase.VETO_REPLY:
            return [VetoReply(seat, True), VetoReply(seat, False)]
        targets = self.power_targets()
        if phase is Phase.INVESTIGATE:
            return [Investigate(seat, t) for t in targets]
        if phase is Phase.SPECIAL_ELECTION:
            return [CallSpecialElection(seat, t) for t in targets]
        return [Execute(seat, t) for t in targets]

    def legal_claims(self, seat: int) -> list[Claim]:
        """The claims `seat` may make now (optional talk; never in `legal_actions`)."""
        if type(seat) is not int or not 0 <= seat < self.players:
            return []
        if self.is_over or not self.alive[seat]:
            return []
        return self.open_claims.options(seat)

    def power_targets(self) -> list[int]:
        """Legal targets of the pending presidential power."""
        spent = self.investigated if self.phase is Phase.INVESTIGATE else ()
        return rules.others(self.alive, self.president, spent)

    # --- transitions ----------------------------------------------------------------

    def apply(self, action: Action) -> list[ev.Event]:
        """Play `action` and return the events it caused.

        Raises an `IllegalAction` subclass, with a message for the player, and leaves
        the state untouched when the action is not allowed now (`MalformedAction` when it
        is not even a well-typed action of an existing seat).
        """
        check_well_formed(action, self.players)  # the one type check, before any rule
        if isinstance(action, Claim):
            return self._claim(action)
        self._check(action)
        start = len(self.events)
        votes = self.votes
        if type(action) is Vote and len(votes) + (action.seat not in votes) < self.alive_count:
            # A ballot, not the last: it changes one entry of `votes` alone.
            self._undo.append(_Undo(start, None, (action.seat, votes.get(action.seat))))
        else:
            self._push_undo()
        self.actions.append(action)
        match action:
            case Nominate():
                self._nominate(action.chancellor)
            case Vote():
                self._vote(action.seat, action.ja)
            case Discard():
                self._president_discard(action.policy)
            case Enact():
                self._chancellor_enact(action.policy)
            case ProposeVeto():
                self.phase = Phase.VETO_REPLY
                self._emit(ev.VetoProposed(action.seat))
            case VetoReply():
                self._veto_reply(action.agree)
            case Investigate():
                self._investigate(action.target)
            case CallSpecialElection():
                self._special_election(action.target)
            case Execute():
                self._execute(action.target)
        return self.events[start:]

    def _check(self, action: Action) -> None:
        """Raise the precise `IllegalAction` for a well-formed `action`, or return if legal."""
        seat = action.seat
        if self.phase is Phase.GAME_OVER:
            raise WrongPhase("The game is over.")
        if self.phase is not _ACTION_PHASE[type(action)]:
            raise WrongPhase(
                f"That is not possible now: the game is waiting for {_PHASE_WORDS[self.phase]}."
            )
        if not self.alive[seat]:
            raise NotYourTurn("Dead players take no part in the game.")
        if isinstance(action, Vote):
            previous = self.votes.get(seat)
            if previous is action.ja:
                raise DuplicateVote(f"You already voted {'Ja' if action.ja else 'Nein'}.")
            return
        if seat not in self.awaiting():
            who = "the chancellor" if self.phase is Phase.CHANCELLOR_ENACT else "the president"
            raise NotYourTurn(f"Only {who} (seat {self.awaiting()[0]}) can do that now.")
        match action:
            case Nominate():
                self._check_nominee(action.chancellor)
            case Discard() | Enact():
                if action.policy not in self.hand:
                    raise TileNotInHand(
                        f"You hold no {action.policy.party.value.capitalize()} policy."
                    )
            case ProposeVeto():
                if not self.veto_unlocked:
                    raise VetoUnavailable(
                        f"Veto is unlocked only once {VETO_AT} Fascist policies are enacted."
                    )
                if self.veto_refused:
                    raise VetoUnavailable("The president already refused a veto this session.")
            case Investigate() | CallSpecialElection() | Execute():
                self._check_target(action.target)

    def _claim(self, claim: Claim) -> list[ev.Event]:
        seat = claim.seat
        if self.is_over:
            raise WrongPhase("The game is over.")
        if not self.alive[seat]:
            raise NotYourTurn("Dead players take no part in the game.")
        self.open_claims.check(claim)
        self._push_undo()
        self.actions.append(claim)
        self.open_claims = self.open_claims.without(claim)
        event = claim_event(claim)
        self._emit(event)
        return [event]

    def _check_nominee(self, chancellor: int) -> None:
        if not 0 <= chancellor < self.players:
            raise IllegalTarget(f"There is no seat {chancellor}.")
        if chancellor == self.president:
            raise IllegalTarget("You cannot nominate yourself.")
        if not self.alive[chancellor]:
            raise IllegalTarget(f"Seat {chancellor} is dead.")
        if chancellor in self.term_limited():
            raise IllegalTarget(
                f"Seat {chancellor} is term-limited: they served in the last elected government."
            )

    def _check_target(self, target: int) -> None:
        if not 0 <= target < self.players:
            raise IllegalTarget(f"There is no seat {target}.")
        if target == self.president:
            raise IllegalTarget("You cannot choose yourself.")
        if not self.alive[target]:
            raise IllegalTarget(f"Seat {target} is dead.")
        if self.phase is Phase.INVESTIGATE and target in self.investigated:
            raise IllegalTarget(f"Seat {target} has already been investigated.")

    def _emit(self, event: ev.Event) -> None:
        self.events.append(event)

    def _nominate(self, chancellor: int) -> None:
        self.chancellor = chancellor
        self.votes = {}
        self.phase = Phase.VOTE
        self._emit(ev.ChancellorNominated(self.president, chancellor))

    def _vote(self, seat: int, ja: bool) -> None:
        changed = seat in self.votes
        self.votes[seat] = ja
        self._emit(ev.VoteCast(seat, changed))
        if len(self.votes) == self.alive_count:
            self._count_votes()

    def _count_votes(self) -> None:
        chancellor = self.chancellor
        assert chancellor is not None
        ballots = tuple(self.votes.get(s) for s in range(self.players))
        elected = sum(1 for b in ballots if b) >= rules.majority(self.alive_count)
        self._emit(ev.ElectionResult(self.president, chancellor, ballots, elected))
        self.votes = {}
        if not elected:
            self._advance_tracker()
            if not self.is_over:
                self._next_president()
            return
        self.last_president, self.last_chancellor = self.president, chancellor
        if rules.hitler_zone(self.fascist_policies):
            if self.roles[chancellor] is Role.HITLER:
                self._end(WinReason.HITLER_ELECTED)
                return
            self.not_hitler.add(chancellor)
            self._emit(ev.ChancellorNotHitler(chancellor))
        self.open_claims = OpenClaims()  # the last session's claims were due before this one
        self.hand = self.draw_pile[:DRAW]
        del self.draw_pile[:DRAW]
        self.phase = Phase.PRESIDENT_DISCARD
        self._emit(ev.PoliciesDrawn(self.president, tuple(self.hand)))

    def _president_discard(self, policy: Policy) -> None:
        assert self.chancellor is not None
        self.hand.remove(policy)
        self.discard_pile.append(policy)
        self.veto_refused = False
        self.phase = Phase.CHANCELLOR_ENACT
        self._emit(ev.PolicyDiscarded(self.president, policy))
        self._emit(ev.PolicyHandPassed(self.president, self.chancellor))
        self._emit(ev.PoliciesReceived(self.chancellor, tuple(self.hand)))

    def _chancellor_enact(self, policy: Policy) -> None:
        assert self.chancellor is not None
        self.hand.remove(policy)
        discarded = self.hand.pop()
        self.discard_pile.append(discarded)
        self._emit(ev.PolicyDiscarded(self.chancellor, discarded))
        self._enact(policy, chaos=False)
        if self.is_over:
            return
        self.open_claims = self.open_claims.with_session(self.president, self.chancellor, policy)
        self._reshuffle_if_short()
        power = self.setup.power_after(self.fascist_policies) if policy is Policy.FASCIST else None
        if power is None:
            self._next_president()
        elif power is Power.POLICY_PEEK:
            self._emit(ev.PowerGranted(self.president, power))
            self._emit(ev.PolicyPeeked(self.president, tuple(self.draw_pile[:DRAW])))
            self.open_claims = replace(self.open_claims, peek=self.president)
            self._next_president()
        else:
            self.phase = rules.POWER_PHASE[power]
            if self.power_targets():
                self._emit(ev.PowerGranted(self.president, power))
            else:  # only reachable with a custom track: nobody is left to target
                self._emit(ev.PowerSkipped(self.president, power))
                self._next_president()

    def _veto_reply(self, agree: bool) -> None:
        self._emit(ev.VetoReplied(self.president, agree))
        if not agree:
            self.veto_refused = True
            self.phase = Phase.CHANCELLOR_ENACT
            return
        assert self.chancellor is not None
        self.open_claims = self.open_claims.with_session(self.president, self.chancellor, None)
        self.discard_pile.extend(self.hand)
        self.hand = []
        self._reshuffle_if_short()  # the check comes before the tracker moves
        self._advance_tracker()
        if not self.is_over:
            self._next_president()

    def _investigate(self, target: int) -> None:
        self.investigated.add(target)
        self._emit(ev.PlayerInvestigated(self.president, target))
        self._emit(ev.InvestigationResult(self.president, target, self.roles[target].party))
        self.open_claims = replace(self.open_claims, investigation=(self.president, target))
        self._next_president()

    def _special_election(self, target: int) -> None:
        self._emit(ev.SpecialElectionCalled(self.president, target))
        self.special_election_caller = self.president
        self._start_candidacy(target)

    def _execute(self, target: int) -> None:
        self.alive[target] = False
        self._emit(ev.PlayerExecuted(self.president, target))
        if self.roles[target] is Role.HITLER:
            self._end(WinReason.HITLER_EXECUTED)
        else:
            self._next_president()

    def _advance_tracker(self) -> None:
        self.election_tracker += 1
        self._emit(ev.ElectionTrackerAdvanced(self.election_tracker))
        if rules.chaos(self.election_tracker):
            self._chaos()

    def _chaos(self) -> None:
        """Top-deck: enact the top tile, ignore its power, forget term limits."""
        policy = self.draw_pile.pop(0)
        self._enact(policy, chaos=True)
        if self.is_over:
            return
        self.last_president = self.last_chancellor = None
        self._emit(ev.TermLimitsCleared())
        self._reshuffle_if_short()

    def _enact(self, policy: Policy, *, chaos: bool) -> None:
        if policy is Policy.LIBERAL:
            self.liberal_policies += 1
        else:
            self.fascist_policies += 1
        self.election_tracker = 0
        self._emit(ev.PolicyEnacted(policy, chaos, self.liberal_policies, self.fascist_policies))
        reason = rules.ending(self.liberal_policies, self.fascist_policies)
        if reason is not None:
            self._end(reason)

    def _reshuffle_if_short(self) -> None:
        if not rules.must_reshuffle(len(self.draw_pile)):
            return
        frame = self._undo[-1]
        if frame.chance is None and isinstance(self.chance, Rewindable):
            # The first reshuffle of this action: keep the chance to rewind to.
            frame.chance = self.chance.getstate()
        pool = self.draw_pile + self.discard_pile
        liberal = pool.count(Policy.LIBERAL)
        self.draw_pile = self.chance.shuffle(
            [Policy.LIBERAL] * liberal + [Policy.FASCIST] * (len(pool) - liberal)
        )
        self.discard_pile = []
        self._emit(ev.DeckReshuffled(len(self.draw_pile)))

    # --- taking actions back ------------------------------------------------------------

    def _push_undo(self) -> None:
        self._undo.append(_Undo(len(self.events), (_values(self), _pack(self))))

    def events_since(self, action: int) -> list[ev.Event]:
        """The events the actions from the `action`-th on (counting from 0) caused, in
        order; none for `action == len(actions)`. Read from the move stack: no replay."""
        if not 0 <= action <= len(self.actions):
            raise IndexError(f"No action {action} in a game of {len(self.actions)} actions.")
        if action == len(self.actions):
            return []
        return self.events[self._undo[action].events :]

    def undo(self) -> Action:
        """Take back the last action (a claim too) and return it.

        The game is left exactly as before that action: its state, events, move stack
        and chance source, so applying the same action again gives the same events, and
        a seeded game equals the one replayed from its seed without that action.
        Raises `NothingToUndo` when no action has been applied. With a chance source
        that is not `Rewindable`, undoing a reshuffle leaves the source where it is.
        """
        if not self._undo:
            raise NothingToUndo("There is no action to take back.")
        frame = self._undo.pop()
        if frame.state is None:
            assert frame.ballot is not None
            seat, ballot = frame.ballot
            votes = dict(self.votes)  # not in place: a shallow copy may share the dict
            if ballot is None:
                del votes[seat]
            else:
                votes[seat] = ballot
            self.votes = votes
        else:
            values, packed = frame.state
            for name, value in zip(_VALUES, values, strict=True):
                setattr(self, name, value)
            _unpack(self, packed)
        if frame.chance is not None and isinstance(self.chance, Rewindable):
            self.chance.setstate(frame.chance)
        del self.events[frame.events :]
        return self.actions.pop()

    def _next_president(self) -> None:
        if self.special_election_caller is not None:
            base, self.special_election_caller = self.special_election_caller, None
        else:
            base = self.president
        self._start_candidacy(self.left_of(base))

    def _start_candidacy(self, president: int) -> None:
        self.president = president
        self.chancellor = None
        self.hand = []
        self.phase = Phase.NOMINATE
        self._emit(ev.PresidentialCandidate(president))

    def _end(self, reason: WinReason) -> None:
        self.winner = reason.winner
        self.win_reason = reason
        self.phase = Phase.GAME_OVER
        self.open_claims = OpenClaims()
        self._emit(ev.GameEnded(reason.winner, reason, self.roles))

    # --- information sets -----------------------------------------------------------

    def view(self, seat: int) -> PlayerView:
        """Everything `seat` may know now: public state and history, plus its secrets."""
        if type(seat) is not int:  # True would read seat 1's secrets
            raise MalformedAction("The seat must be a seat number.")
        if not 0 <= seat < self.players:
            raise MalformedAction(f"There is no seat {seat}.")
        return make_view(self, seat)

    def spectator_view(self) -> PlayerView:
        """What anyone watching may know: public state and history only."""
        return make_view(self, None)

    def tiles_in_play(self) -> int:
        """Tiles in piles, hands and on the board (conserved through the game)."""
        return (
            len(self.draw_pile)
            + len(self.discard_pile)
            + len(self.hand)
            + self.liberal_policies
            + self.fascist_policies
        )


def _distinct(tiles: Sequence[Policy]) -> list[Policy]:
    return [p for p in (Policy.LIBERAL, Policy.FASCIST) if p in tiles]


# Every field an action may change (the property test in tests/engine/test_undo.py
# fails if one is missing): immutable values, kept as they are by an undo entry, and
# containers, copied.
_VALUES = (
    "president",
    "chancellor",
    "last_president",
    "last_chancellor",
    "special_election_caller",
    "election_tracker",
    "liberal_policies",
    "fascist_policies",
    "phase",
    "veto_refused",
    "open_claims",
    "winner",
    "win_reason",
)
# attrgetter reads them all in one C call: an undo entry is made for every action.
_values = attrgetter(*_VALUES)
_POLICY = {policy.value: policy for policy in Policy}

# The containers an action may change, packed as values the garbage collector need not
# walk (strings, and tuples of ints and bools): a game keeps an undo entry per action, and
# as lists and sets they were a third of a running bot's tracked objects, which every
# full collection walks while the event loop waits (bench/session_bench.py).
_Packed = tuple[
    tuple[tuple[int, bool], ...], str, str, str, tuple[bool, ...], tuple[int, ...], tuple[int, ...]
]


def _pack(game: Game) -> _Packed:
    return (
        tuple(game.votes.items()),
        "".join(game.draw_pile),
        "".join(game.discard_pile),
        "".join(game.hand),
        tuple(game.alive),
        tuple(sorted(game.investigated)),  # sorted: equal sets pack equally
        tuple(sorted(game.not_hitler)),
    )


def _unpack(game: Game, packed: _Packed) -> None:
    votes, draw_pile, discard_pile, hand, alive, investigated, not_hitler = packed
    policy = _POLICY
    game.votes = dict(votes)
    game.draw_pile = [policy[tile] for tile in draw_pile]
    game.discard_pile = [policy[tile] for tile in discard_pile]
    game.hand = [policy[tile] for tile in hand]
    game.alive = list(alive)
    game.investigated = set(investigated)
    game.not_hitler = set(not_hitler)


_ACTION_PHASE: dict[type[Action], Phase] = {
    Nominate: Phase.NOMINATE,
    Vote: Phase.VOTE,
    Discard: Phase.PRESIDENT_DISCARD,
    Enact: Phase.CHANCELLOR_ENACT,
    ProposeVeto: Phase.CHANCELLOR_ENACT,
    VetoReply: Phase.VETO_REPLY,
    Investigate: Phase.INVESTIGATE,
    CallSpecialElection: Phase.SPECIAL_ELECTION,
    Execute: Phase.EXECUTE,
}

_PHASE_WORDS = {
    Phase.NOMINATE: "the president to nominate a chancellor",
    Phase.VOTE: "votes on the proposed government",
    Phase.PRESIDENT_DISCARD: "the president to discard a policy",
    Phase.CHANCELLOR_ENACT: "the chancellor to enact a policy",
    Phase.VETO_REPLY: "the president to answer the veto",
    Phase.INVESTIGATE: "the president to investigate a player",
    Phase.SPECIAL_ELECTION: "the president to call a special election",
    Phase.EXECUTE: "the president to execute a player",
    Phase.GAME_OVER: "nothing: the game is over",
}


def make_view(game: Game, seat: int | None) -> PlayerView:
    """Build the view of `seat` (None: a spectator) from the full game (here, not in
    `engine.views`, so that views know nothing of `Game`)."""
    over = game.is_over
    known: list[Role | None] = [None] * game.players
    if over:
        known = list(game.roles)
    elif seat is not None:
        known[seat] = game.roles[seat]
        for other, role in game.known_roles(seat):
            known[other] = role
    holder = None
    if game.phase is Phase.PRESIDENT_DISCARD:
        holder = game.president
    elif game.phase in (Phase.CHANCELLOR_ENACT, Phase.VETO_REPLY):
        holder = game.chancellor
    return PlayerView(
        seat=seat,
        players=game.players,
        variant=game.setup.variant,
        powers=game.setup.powers,
        liberal_tiles=game.setup.liberal_tiles,
        fascist_tiles=game.setup.fascist_tiles + game.setup.fascist_policies_at_start,
        role=game.roles[seat] if seat is not None else None,
        known_roles=tuple(known),
        phase=game.phase,
        president=game.president,
        chancellor=game.chancellor,
        last_president=game.last_president,
        last_chancellor=game.last_chancellor,
        special_election_caller=game.special_election_caller,
        election_tracker=game.election_tracker,
        liberal_policies=game.liberal_policies,
        fascist_policies=game.fascist_policies,
        draw_pile=len(game.draw_pile),
        discard_pile=len(game.discard_pile),
        alive=tuple(game.alive),
        investigated=tuple(sorted(game.investigated)),
        not_hitler=tuple(sorted(game.not_hitler)),
        term_limited=tuple(game.term_limited()),
        eligible_chancellors=(
            tuple(game.eligible_chancellors()) if game.phase is Phase.NOMINATE else ()
        ),
        veto_unlocked=game.veto_unlocked,
        veto_refused=game.veto_refused,
        voted=tuple(sorted(game.votes)),
        my_vote=game.votes.get(seat) if seat is not None else None,
        hand=tuple(game.hand) if seat is not None and seat == holder else (),
        awaiting=tuple(game.awaiting()),
        legal_actions=tuple(game.legal_actions(seat)) if seat is not None else (),
        legal_claims=tuple(game.legal_claims(seat)) if seat is not None else (),
        winner=game.winner,
        win_reason=game.win_reason,
        events=tuple(e for e in game.events if over or e.visible_to(seat)),
    )
