"""Exact Bayesian belief over role assignments, from one seat's point of view.

`Belief` enumerates every role assignment consistent with what the seat knows (10
players, a spectator: 10 Hitler seats x C(9, 3) Fascist sets = 840 assignments; a
Liberal at 10 players: 504) and keeps the exact posterior over them, updated by every
event the seat can see, with the likelihoods of `agents.behaviour`.

The hidden state besides roles is carried per assignment in one numpy array, the
joint `P(assignment, j, r, d, p)`:

- `r`: Liberal tiles in the draw pile below any peeked block. The deck is conserved
  (Liberal tiles in draw + discard + hand = Liberal tiles not enacted), so after a
  reshuffle `r` is known exactly; between reshuffles it follows hypergeometric draws
  whose outcome depends on who discarded what, hence per assignment.
- `j`: Liberal tiles among the three a policy peek showed (axis of size 1 without a peek).
  Chaos may take tiles off that block before it is drawn; those tiles are public.
- `d`, `p`: Liberal tiles the president of the last session drew and passed (axes of
  size 1 outside a session). They stay latent until the session's claim windows close
  (at the next session's draw), because the claims are evidence about them.

A seat's own decisions are never used as evidence about others (it knows why it made
them), and its private events (its draw, its hand, its peek, its investigation
result, its team knowledge) condition the joint exactly. A spectator (`seat=None`)
sees public events only. Hard deductions are exact zeros, and only the rules' own:
`ChancellorNotHitler`, an execution the game survives, a result the seat saw.

Play styles: each seat's moves are read with a mixture of styles (`Styles`, by
default `agents.behaviour.robust_styles`: bot-like, sensible human, role-blind chaotic,
uniform noise). Given an assignment, the seats' styles are independent, so the belief
keeps per assignment and seat the log-likelihood of that seat's own moves under each
style (`style_ll`): a move is weighed by the style mixture that seat's past moves point
to. That is exact for moves that depend on roles only (votes, nominations, powers);
for moves tied to the hidden tiles (enacting, claims) the style evidence is the move's
likelihood averaged over the tiles, an approximation. A seat that plays like no role's
style drifts to the blind styles, and its odd moves stop poisoning the table.

Evidence that contradicts everything (a deck state the record rules out) is ignored
and counted in `inconsistent`, so the belief never divides by zero.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from engine import Party, Policy, Power, Role, Setup, Variant
from engine import events as ev
from engine.fastsim import FASCIST_ROLE, HITLER_ROLE, LIBERAL_ROLE, ROLE_CODE, ROLE_OF_CODE
from engine.variants import HITLER_ZONE, VETO_AT
from engine.views import PlayerView

from .behaviour import (
    CHANCELLOR_POS,
    CHANCELLOR_SILENT,
    CLAIM_FASCIST,
    CLAIM_LIBERAL,
    ENACTED_FASCIST,
    ENACTED_LIBERAL,
    EXECUTION_POWER,
    INVESTIGATE_POWER,
    INVESTIGATION_SILENT,
    OTHER_POS,
    PEEK_SILENT,
    PRESIDENT_CLAIM_INDEX,
    PRESIDENT_POS,
    PRESIDENT_SILENT,
    SPECIAL_ELECTION_POWER,
    VETOED,
    Behaviour,
    Styles,
    load_styles,
)

# Per seat: P(Liberal), P(Fascist), P(Hitler); the three sum to 1.
Marginals = tuple[tuple[float, float, float], ...]
Array = npt.NDArray[np.float64]


@cache
def every_deal(players: int, fascists: int) -> npt.NDArray[np.int8]:
    """Every role assignment (rows of role indices per seat): Hitler seat x Fascist set."""
    rows = []
    for hitler in range(players):
        others = [s for s in range(players) if s != hitler]
        for fascist_seats in combinations(others, fascists):
            row = [LIBERAL_ROLE] * players
            row[hitler] = HITLER_ROLE
            for s in fascist_seats:
                row[s] = FASCIST_ROLE
            rows.append(row)
    table = np.array(rows, dtype=np.int8)
    table.setflags(write=False)
    return table


def hypergeom(population: int, liberals: int, draws: int, hits: int) -> float:
    """P(`hits` Liberal tiles among `draws` from a pile of `population` with `liberals`)."""
    if not (0 <= hits <= draws <= population and 0 <= liberals <= population):
        return 0.0
    if hits > liberals or draws - hits > population - liberals:
        return 0.0
    return (
        comb(liberals, hits) * comb(population - liberals, draws - hits) / comb(population, draws)
    )


@cache
def _draw_matrix(blocks: int, depth: int, block_size: int, block_out: int, pile: int) -> Array:
    """Transition (j, r) -> (r', d) of a three-tile draw, flattened for one matmul.

    The draw takes the `block_size` peeked tiles (holding j - `block_out` Liberal ones)
    and 3 - `block_size` tiles from the `pile - block_size` below, which hold r.
    """
    matrix: Array = np.zeros((blocks, depth, depth, 4))
    from_rest = 3 - block_size
    rest = pile - block_size
    for j in range(blocks):
        on_top = j - block_out if block_size else 0
        if not 0 <= on_top <= block_size:
            continue
        for r in range(depth):
            for x in range(from_rest + 1):
                chance = hypergeom(rest, r, from_rest, x)
                if chance:
                    matrix[j, r, r - x, on_top + x] += chance
    matrix = matrix.reshape(blocks * depth, depth * 4)
    matrix.setflags(write=False)
    return matrix


@cache
def _peek_matrix(depth: int, pile: int) -> Array:
    """Transition r -> (j, r') of a policy peek: the top three hold j of the r Liberals."""
    matrix = np.zeros((depth, 4, depth))
    for r in range(depth):
        for j in range(4):
            chance = hypergeom(pile, r, 3, j)
            if chance:
                matrix[r, j, r - j] = chance
    matrix.setflags(write=False)
    return matrix


def _liberal_count(tiles: Iterable[Policy]) -> int:
    return sum(1 for t in tiles if t is Policy.LIBERAL)


@dataclass(slots=True)
class _Legislation:
    """The legislative session in progress, or the last one while its claims are open."""

    president: int
    chancellor: int
    zone: int
    stage: str = "drawn"  # "drawn" (president holds 3), "passed" (chancellor holds 2), "done"
    my_drawn: int | None = None
    my_discard: Policy | None = None
    veto_unlocked: bool = False
    veto_proposed: bool = False
    enacted: int | None = None  # ENACTED_LIBERAL / ENACTED_FASCIST / VETOED once done
    president_claimed: bool = False
    chancellor_claimed: bool = False
    # (P(d drawn) per assignment before the pass, pass tables per president style):
    # kept so the enact can teach the president's style (several styles only).
    pass_styles: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None


@dataclass(frozen=True, slots=True)
class BeliefSample:
    """One sample of the hidden state: roles, and the Liberal tiles the pile holds.

    `draw_liberals` counts every Liberal tile in the draw pile. If a peeked block is
    still on top, its `top_size` tiles hold `top_liberals` of them (the seat itself
    knows their order if it peeked). `hand_liberals` is the Liberal count of the hand
    being held now (the president's three tiles, or the chancellor's two), else None.
    A caller builds a concrete pile from these counts (random order, or the seat's peek).
    """

    roles: tuple[Role, ...]
    draw_liberals: int
    top_size: int
    top_liberals: int
    hand_liberals: int | None


class Belief:
    """The exact posterior over role assignments (and deck state) of one seat.

    Feed it the events the seat sees (`update`, `update_all`, or `sync` with a view);
    read `marginals()`, `probabilities()`, `pair_liberal()` or draw determinizations
    from `sampler()`. `seat=None` is the table's observer: public events only.
    """

    def __init__(
        self,
        setup: Setup,
        seat: int | None = None,
        behaviour: Behaviour | Styles | None = None,
    ) -> None:
        self.setup = setup
        self.seat = seat
        self.players = setup.players
        # A single Behaviour is read as one style (the exact belief of old); None is the
        # robust mixture around the shipped fit.
        if isinstance(behaviour, Behaviour):
            behaviour = Styles.single(behaviour)
        self.styles = behaviour if behaviour is not None else load_styles(setup.players)
        self.behaviour = self.styles.behaviours[0]
        self._stack = self.styles.stacked  # a table of every style, style axis last
        self._styles = len(self.styles.behaviours)
        self._log_prior = np.log(np.array(self.styles.prior))
        self.depth = setup.liberal_tiles + 1  # r takes values 0..liberal_tiles
        self._set_roles(every_deal(setup.players, setup.fascists))
        # Per assignment, seat and style: log-likelihood of that seat's own moves.
        self.style_ll: Array = np.zeros((len(self.roles), self.players, self._styles))
        self._weights_of: dict[int, Array] = {}  # seat -> its style weights, (A, K)
        self.joint: Array = np.zeros((len(self.roles), 1, self.depth, 1, 1))
        self.joint[:, 0, setup.liberal_tiles, 0, 0] = 1.0 / len(self.roles)
        # Public state, tracked from events.
        self.draw_pile = setup.liberal_tiles + setup.fascist_tiles
        self.block_size = 0  # peeked tiles still on top of the draw pile
        self.block_out = 0  # Liberal tiles chaos took off that block
        self.liberal_policies = 0
        self.fascist_policies = setup.fascist_policies_at_start
        self.alive = [True] * setup.players
        self.president: int | None = None
        self.last_government: tuple[int | None, int | None] = (None, None)
        self.investigated: set[int] = set()
        self.session: _Legislation | None = None
        self.peek_window: int | None = None  # the peeker, until the peek claim or next draw
        self.investigation_window: tuple[int, int] | None = None
        self.pending_execution: int | None = None
        self.over = False
        self.events_seen = 0  # events visible to this seat processed so far
        self.inconsistent = 0  # evidence ignored because it contradicted everything

    # --- construction -----------------------------------------------------------------

    @classmethod
    def for_view(
        cls,
        view: PlayerView,
        behaviour: Behaviour | Styles | None = None,
        setup: Setup | None = None,
    ) -> Belief:
        """The belief of `view.seat` (None: the table) after every event of `view`.

        The setup comes from the view's variant name; a `custom` variant's deck is not
        in the view, so pass its `setup` explicitly.
        """
        if setup is None:
            if view.variant == "custom":
                raise ValueError("A custom variant's deck is not in the view: pass its setup.")
            setup = Variant(view.variant).setup(view.players)
        belief = cls(setup, view.seat, behaviour)
        belief.sync(view)
        return belief

    def sync(self, view: PlayerView) -> None:
        """Process the events of `view` this belief has not seen yet."""
        if view.seat != self.seat:
            raise ValueError(f"A belief of seat {self.seat} was shown seat {view.seat}'s view.")
        visible = [e for e in view.events if e.visible_to(self.seat)]
        for event in visible[self.events_seen :]:
            self.update(event)

    def update_all(self, events: Iterable[ev.Event]) -> None:
        """Process events in order (those this seat may not see are skipped)."""
        for event in events:
            self.update(event)

    def _set_roles(self, roles: npt.NDArray[np.int8]) -> None:
        self.roles = roles
        self._rows: dict[bytes, int] | None = None
        self.is_liberal = (roles == LIBERAL_ROLE).astype(np.float64)
        self.is_fascist = (roles == FASCIST_ROLE).astype(np.float64)
        self.is_hitler = (roles == HITLER_ROLE).astype(np.float64)

    # --- queries ----------------------------------------------------------------------

    def probabilities(self) -> Array:
        """P(assignment) for each row of `self.roles` (sums to 1)."""
        weights = self.joint.sum(axis=(1, 2, 3, 4))
        return np.asarray(weights / weights.sum())

    def assignments(self) -> list[tuple[Role, ...]]:
        """The role assignments the rows of `probabilities()` stand for."""
        return [tuple(ROLE_OF_CODE[i] for i in row) for row in self.roles]

    def _weights(self, given_liberal: int | None) -> Array:
        weights = self.joint.sum(axis=(1, 2, 3, 4))
        if given_liberal is not None:
            conditioned = weights * self.is_liberal[:, given_liberal]
            if conditioned.sum() > 0:  # else the record rules it out: nothing to condition on
                weights = conditioned
        return np.asarray(weights)

    def role_matrix(self, given_liberal: int | None = None) -> Array:
        """`out[seat]` = (P(Liberal), P(Fascist), P(Hitler)); each row sums to 1.

        Rows are normalised per seat, so a role the evidence forces comes out exactly
        1.0 and an impossible one exactly 0.0. `given_liberal`: condition on that seat
        being Liberal (what a Liberal in that seat would believe from the same record).
        """
        weights = self._weights(given_liberal)
        out = np.stack(
            [weights @ self.is_liberal, weights @ self.is_fascist, weights @ self.is_hitler],
            axis=1,
        )
        return np.asarray(out / out.sum(axis=1, keepdims=True))

    def marginals(self) -> Marginals:
        """Per seat (P(Liberal), P(Fascist), P(Hitler)); Fascist excludes Hitler."""
        return tuple(tuple(float(x) for x in row) for row in self.role_matrix())  # type: ignore[misc]

    def party_fascist(self, given_liberal: int | None = None) -> Array:
        """Per seat P(Fascist party), Hitler included (sums to the Fascist team's size)."""
        return np.asarray(1.0 - self.role_matrix(given_liberal)[:, 0])  # 0 and 1 stay exact

    def hitler(self, given_liberal: int | None = None) -> Array:
        """Per seat P(Hitler) (sums to 1)."""
        return np.asarray(self.role_matrix(given_liberal)[:, 2])

    def pair_liberal(self, given_liberal: int | None = None) -> Array:
        """`out[a, b]` = P(seats a and b are both Liberal) (diagonal: P(a Liberal))."""
        weights = self._weights(given_liberal)
        return np.asarray(
            self.is_liberal.T @ (self.is_liberal * (weights / weights.sum())[:, None])
        )

    def draw_liberal_distribution(self) -> Array:
        """P(Liberal tiles in the whole draw pile = k | assignment), shape (A, liberal+1).

        Rows of impossible assignments are zero.
        """
        on_top = np.arange(self.joint.shape[1]) - self.block_out if self.block_size else None
        out = np.zeros((len(self.roles), self.depth))
        per_jr = self.joint.sum(axis=(3, 4))  # (A, J, R)
        for j in range(per_jr.shape[1]):
            shift = 0 if on_top is None else int(on_top[j])
            if not 0 <= shift <= self.block_size:
                continue
            out[:, shift:] += per_jr[:, j, : self.depth - shift]
        totals = out.sum(axis=1, keepdims=True)
        normalised: Array = np.divide(out, totals, out=np.zeros_like(out), where=totals > 0)
        return normalised

    def row_of(self, roles: Sequence[Role]) -> int | None:
        """The row of `self.roles` holding this assignment, None if it was never possible."""
        if self._rows is None:
            self._rows = {row.tobytes(): i for i, row in enumerate(self.roles)}
        key = np.array([ROLE_CODE[r] for r in roles], dtype=np.int8).tobytes()
        return self._rows.get(key)

    def joint_probability(self, roles: Sequence[Role], draw_liberals: int | None = None) -> float:
        """P(these roles), or P(these roles and `draw_liberals` Liberal tiles in the pile)."""
        row = self.row_of(roles)
        if row is None:
            return 0.0
        total = float(self.joint.sum())
        per_jr = self.joint[row].sum(axis=(2, 3))  # (J, R)
        if draw_liberals is None:
            return float(per_jr.sum()) / total
        mass = 0.0
        for j in range(per_jr.shape[0]):
            on_top = j - self.block_out if self.block_size else 0
            r = draw_liberals - on_top
            if 0 <= on_top <= self.block_size and 0 <= r < self.depth:
                mass += float(per_jr[j, r])
        return mass / total

    def sampler(self) -> PosteriorSampler:
        """A sampler of determinizations from the current posterior (build once per decision)."""
        return PosteriorSampler(self)

    # --- evidence helpers --------------------------------------------------------------

    def _weigh(self, factor: Array) -> bool:
        """Multiply the joint by a likelihood (broadcast) and renormalise.

        A factor that would zero every assignment contradicts the hard rules as the
        belief tracks them: it is ignored and counted. Returns whether it was applied.
        """
        weighed = self.joint * factor
        total = float(weighed.sum())
        if not total > 0.0 or not np.isfinite(total):
            self.inconsistent += 1
            return False
        # Queries normalise; rescale only before the numbers could underflow.
        self.joint = weighed if total > 1e-150 else weighed / total
        return True

    def _weigh_assignments(self, factor: Array) -> bool:
        return self._weigh(factor[:, None, None, None, None])

    def _style_weights(self, seats: Sequence[int]) -> Array:
        """P(style | assignment, the seats' own moves so far), shape (A, seats, K).

        Kept per seat until that seat moves again (most moves read one seat's weights
        while the others' stay as they were).
        """
        for seat in seats:
            if seat not in self._weights_of:
                ll = self.style_ll[:, seat, :] + self._log_prior
                ll -= ll.max(axis=-1, keepdims=True)
                weights = np.exp(ll)
                self._weights_of[seat] = weights / weights.sum(axis=-1, keepdims=True)
        return np.stack([self._weights_of[seat] for seat in seats], axis=1)

    def _weigh_move(self, actor: int, factors: Array) -> None:
        """Evidence of one move by `actor`: `factors[..., k]` is its likelihood under
        style k, with the joint's five dimensions first (assignments, then broadcast).

        The move is weighed with the actor's style mixture given each assignment; then
        each style's likelihood of it (averaged over the hidden tiles) is added to the
        actor's style evidence.
        """
        if self._styles == 1:
            self._weigh(factors[..., 0])
            return
        # Batched matrix products over the style axis (faster than reducing it).
        rows, styles = len(factors), factors.shape[-1]
        table = factors.reshape(rows, -1, styles)  # (A, cells, K)
        weights = self._style_weights([actor])[:, 0, :, None]  # (A, K, 1)
        mixed = np.matmul(table, weights).reshape(factors.shape[:-1])
        # Sum the joint over the hidden axes the move does not depend on first: the
        # averages then cost a small array, not the whole joint per style.
        flat = tuple(axis for axis in (1, 2, 3, 4) if factors.shape[axis] == 1)
        if len(flat) == 4:
            likelihoods = table[:, 0, :]
        else:
            marginal = self.joint.sum(axis=flat, keepdims=True) if flat else self.joint
            cells = np.broadcast_to(marginal, factors.shape[:-1]).reshape(rows, 1, -1)
            mass = cells.sum(axis=2)
            likelihoods = np.matmul(cells, table)[:, 0, :] / np.where(mass > 0, mass, 1.0)
        if self._weigh(mixed):
            self.style_ll[:, actor, :] += np.log(np.maximum(likelihoods, 1e-300))
            self._weights_of.pop(actor, None)

    def _choice_at(
        self,
        name: str,
        index: int | tuple[slice, slice, int],
        chooser: int,
        chosen: int,
        options: Sequence[int],
    ) -> None:
        """Evidence of a choice made with probability proportional to a weight table,
        `table[index]` indexed [chooser role, option role] (per style)."""
        if chooser == self.seat or chosen not in options:
            return
        weights = self._stack(name)[index]
        chooser_roles = self.roles[:, chooser]
        option_weights = weights[chooser_roles[:, None], self.roles[:, list(options)]]
        chosen_weight = weights[chooser_roles, self.roles[:, chosen]]
        chance = chosen_weight / option_weights.sum(axis=1)
        self._weigh_move(chooser, chance[:, None, None, None, None, :])

    def _zone(self) -> int:
        return int(self.fascist_policies >= HITLER_ZONE)

    def _living_others(self, seat: int) -> list[int]:
        return [s for s in range(self.players) if self.alive[s] and s != seat]

    def eligible_chancellors(self, president: int) -> list[int]:
        """The seats `president` may nominate now, from the public record."""
        last_president, last_chancellor = self.last_government
        limited = {last_chancellor}
        if sum(self.alive) > 5:
            limited.add(last_president)
        return [s for s in self._living_others(president) if s not in limited]

    # --- the event handler ------------------------------------------------------------

    def update(self, event: ev.Event) -> None:
        """Process one event (ignored if this seat may not see it)."""
        if not event.visible_to(self.seat):
            return
        self.events_seen += 1
        if self.pending_execution is not None and not isinstance(event, ev.GameEnded):
            # The game went on after the execution: the victim was not Hitler.
            self._weigh_assignments((self.roles[:, self.pending_execution] != HITLER_ROLE) * 1.0)
            self.pending_execution = None
        match event:
            case ev.GameStarted():
                self.fascist_policies = event.fascist_policies
            case ev.RoleDealt():
                self._role_dealt(event)
            case ev.PresidentialCandidate():
                self.president = event.president
            case ev.ChancellorNominated():
                options = self.eligible_chancellors(event.president)
                zone = (slice(None), slice(None), self._zone())
                self._choice_at("nominate_weight", zone, event.president, event.chancellor, options)
            case ev.ElectionResult():
                self._election(event)
            case ev.ChancellorNotHitler():
                self._weigh_assignments((self.roles[:, event.chancellor] != HITLER_ROLE) * 1.0)
            case ev.PoliciesDrawn():
                self._policies_drawn(event)
            case ev.PolicyDiscarded():
                session = self.session
                if session is not None and session.stage == "drawn":
                    session.my_discard = event.policy
            case ev.PolicyHandPassed():
                self._hand_passed()
            case ev.PoliciesReceived():
                self._condition_axis(4, _liberal_count(event.tiles))
            case ev.VetoProposed():
                self._veto_proposed()
            case ev.VetoReplied():
                self._veto_replied(event.agreed)
            case ev.PolicyEnacted():
                if event.chaos:
                    self._chaos(event.policy)
                else:
                    self._enacted(event.policy)
                self.liberal_policies = event.liberal_policies
                self.fascist_policies = event.fascist_policies
            case ev.TermLimitsCleared():
                self.last_government = (None, None)
            case ev.DeckReshuffled():
                self._reshuffle(event.draw_pile)
            case ev.PowerGranted():
                if event.power is Power.POLICY_PEEK:
                    self._peek(event.president)
            case ev.PolicyPeeked():
                self._condition_axis(1, _liberal_count(event.tiles))
            case ev.PlayerInvestigated():
                options = [
                    s for s in self._living_others(event.president) if s not in self.investigated
                ]
                self._choice_at(
                    "target_weight", INVESTIGATE_POWER, event.president, event.target, options
                )
                self.investigated.add(event.target)
                self.investigation_window = (event.president, event.target)
            case ev.InvestigationResult():
                shown = self.roles[:, event.target] != LIBERAL_ROLE
                self._weigh_assignments((shown == (event.party is Party.FASCIST)) * 1.0)
            case ev.SpecialElectionCalled():
                options = self._living_others(event.president)
                self._choice_at(
                    "target_weight", SPECIAL_ELECTION_POWER, event.president, event.target, options
                )
            case ev.PlayerExecuted():
                options = self._living_others(event.president)
                self._choice_at(
                    "target_weight", EXECUTION_POWER, event.president, event.target, options
                )
                self.alive[event.target] = False
                self.pending_execution = event.target
            case ev.GameEnded():
                self._game_ended(event.roles)
            case ev.PresidentClaimed():
                self._president_claimed(event)
            case ev.ChancellorClaimed():
                self._chancellor_claimed(event)
            case ev.PeekClaimed():
                self._peek_claimed(event)
            case ev.InvestigationClaimed():
                self._investigation_claimed(event)

    # --- role knowledge and the end ---------------------------------------------------

    def _role_dealt(self, event: ev.RoleDealt) -> None:
        keep = self.roles[:, event.seat] == ROLE_CODE[event.role]
        for other, role in event.known:
            keep &= self.roles[:, other] == ROLE_CODE[role]
        self._set_roles(self.roles[keep])
        self.joint = self.joint[keep]
        self.joint /= self.joint.sum()
        self.style_ll = self.style_ll[keep]
        self._weights_of.clear()

    def _game_ended(self, roles: Sequence[Role]) -> None:
        self.over = True
        truth = np.array([ROLE_CODE[r] for r in roles], dtype=np.int8)
        match = np.all(self.roles == truth, axis=1)
        if match.any():
            self.joint = self.joint * match[:, None, None, None, None]
            self.joint /= self.joint.sum()

    # --- elections and sessions -------------------------------------------------------

    def _election(self, result: ev.ElectionResult) -> None:
        zone = self._zone()
        voters = [s for s, b in enumerate(result.votes) if b is not None and s != self.seat]
        if voters:
            president, chancellor = result.president, result.chancellor
            positions = np.array(
                [
                    PRESIDENT_POS
                    if s == president
                    else (CHANCELLOR_POS if s == chancellor else OTHER_POS)
                    for s in voters
                ]
            )
            ja = np.array([bool(result.votes[s]) for s in voters])
            # Per assignment, voter and style: the chance of the ballot cast.
            chances = self._stack("vote_ja")[
                self.roles[:, voters],
                positions[None, :],
                self.roles[:, president][:, None],
                self.roles[:, chancellor][:, None],
                zone,
            ]
            chances = np.where(ja[None, :, None], chances, 1.0 - chances)
            if chances.shape[-1] == 1:
                self._weigh_assignments(chances[:, :, 0].prod(axis=1))
            else:
                mixed = np.einsum("avk,avk->av", self._style_weights(voters), chances).prod(axis=1)
                if self._weigh_assignments(mixed):
                    self.style_ll[:, voters, :] += np.log(chances)
                    for voter in voters:
                        self._weights_of.pop(voter, None)
        if not result.elected:
            return
        self.last_government = (result.president, result.chancellor)
        self._close_claim_windows()
        self.session = _Legislation(
            result.president,
            result.chancellor,
            zone,
            veto_unlocked=self.fascist_policies >= VETO_AT,
        )
        self._draw()

    def _close_claim_windows(self) -> None:
        """The next session draws: claims not made by now are silences."""
        session = self.session
        if session is not None and session.stage == "done" and session.enacted is not None:
            p_roles, c_roles = self.roles[:, session.president], self.roles[:, session.chancellor]
            enacted = session.enacted
            if self._silent(session.president, session.president_claimed):
                table = self._stack("president_claim")
                chance = table[p_roles, c_roles, :, :, enacted, PRESIDENT_SILENT]
                self._weigh_move(session.president, chance[:, None, None])
            if self._silent(session.chancellor, session.chancellor_claimed):
                table = self._stack("chancellor_claim")
                chance = table[c_roles, p_roles, :, enacted, CHANCELLOR_SILENT]
                self._weigh_move(session.chancellor, chance[:, None, None, None])
        self.session = None
        self.joint = self.joint.sum(axis=(3, 4), keepdims=True)
        if self.peek_window is not None:
            peeker = self.peek_window
            if self._silent(peeker, False):
                chance = self._stack("peek_claim")[self.roles[:, peeker], :, PEEK_SILENT]
                self._weigh_move(peeker, chance[:, :, None, None, None])
            self.peek_window = None
            self._drop_spent_block()
        if self.investigation_window is not None:
            president, target = self.investigation_window
            if self._silent(president, False):
                p_roles, t_roles = self.roles[:, president], self.roles[:, target]
                chance = self._stack("investigation_claim")[p_roles, t_roles, INVESTIGATION_SILENT]
                self._weigh_move(president, chance[:, None, None, None, None])
            self.investigation_window = None

    def _silent(self, seat: int, claimed: bool) -> bool:
        """Whether a closing window counts as `seat` choosing silence (evidence)."""
        return not claimed and self.alive[seat] and seat != self.seat

    def _draw(self) -> None:
        blocks = self.joint.shape[1]
        matrix = _draw_matrix(blocks, self.depth, self.block_size, self.block_out, self.draw_pile)
        flat = self.joint.reshape(len(self.roles), blocks * self.depth)
        drawn = (flat @ matrix).reshape(len(self.roles), 1, self.depth, 4, 1)
        if not drawn.sum() > 0.0:
            # No deck state left fits the draw (evidence ignored earlier left the deck
            # wrong): keep the roles' weights, restart the deck from every count possible.
            self.inconsistent += 1
            weights = self.joint.sum(axis=(1, 2, 3, 4))
            spread = np.zeros((blocks * self.depth,))
            spread[: self.depth] = 1.0
            drawn = ((weights[:, None] * spread[None, :]) @ matrix).reshape(drawn.shape)
            if not drawn.sum() > 0.0:
                drawn = np.broadcast_to(weights[:, None, None, None, None], drawn.shape).copy()
        self.joint = drawn
        self.draw_pile -= 3
        self.block_size = self.block_out = 0

    def _policies_drawn(self, event: ev.PoliciesDrawn) -> None:
        if self.session is not None:
            self.session.my_drawn = _liberal_count(event.tiles)
            self._condition_axis(3, self.session.my_drawn)

    def _condition_axis(self, axis: int, value: int) -> None:
        """The seat saw the value of a latent axis (its draw, hand or peek)."""
        mask = np.zeros(self.joint.shape[axis])
        if 0 <= value < len(mask):
            mask[value] = 1.0
        shape = [1] * 5
        shape[axis] = len(mask)
        self._weigh(mask.reshape(shape))

    def _hand_passed(self) -> None:
        session = self.session
        if session is None:
            return
        session.stage = "passed"
        if session.president == self.seat and session.my_drawn is not None:
            passed = session.my_drawn - (session.my_discard is Policy.LIBERAL)
            pass_table = np.zeros((1, 4, 3))
            pass_table[0, :, passed] = 1.0
        else:
            tables = self._stack(f"pass:{session.zone}")[
                self.roles[:, session.president], self.roles[:, session.chancellor]
            ]
            if self._styles == 1:
                pass_table = tables[..., 0]
            else:  # not seen: the president's mixture as it stands (styles learn at the enact)
                weights = self._style_weights([session.president])[:, 0, :]
                pass_table = np.einsum("ak,adpk->adp", weights, tables)
                drawn = self.joint.sum(axis=(1, 2, 4))
                mass = drawn.sum(axis=1, keepdims=True)
                session.pass_styles = (drawn / np.where(mass > 0, mass, 1.0), tables)
        self.joint = self.joint * pass_table[:, None, None, :, :]

    def _veto_proposed(self) -> None:
        session = self.session
        if session is None:
            return
        session.veto_proposed = True
        if session.chancellor != self.seat:
            chance = self._stack("veto_propose")[self.roles[:, session.chancellor]]
            self._weigh_move(session.chancellor, chance[:, None, None, None])

    def _veto_replied(self, agreed: bool) -> None:
        session = self.session
        if session is None:
            return
        if session.president != self.seat:
            chance = self._stack("veto_agree")[self.roles[:, session.president]]
            chance = chance if agreed else 1.0 - chance
            self._weigh_move(session.president, chance[:, None, None, None])
        if agreed:
            session.stage, session.enacted = "done", VETOED

    def _enacted(self, policy: Policy) -> None:
        session = self.session
        if session is None:
            return
        index = ENACTED_LIBERAL if policy is Policy.LIBERAL else ENACTED_FASCIST
        if session.chancellor != self.seat:
            c_roles = self.roles[:, session.chancellor]
            p_roles = self.roles[:, session.president]
            chance = self._stack(f"enact:{session.zone}")[c_roles, p_roles, :, index]
            if session.veto_unlocked and not session.veto_proposed:
                chance = chance * (1.0 - self._stack("veto_propose")[c_roles])
            if session.pass_styles is not None:
                self._learn_pass_style(session.president, session.pass_styles, chance)
            self._weigh_move(session.chancellor, chance[:, None, None, None])
        session.stage, session.enacted = "done", index

    def _learn_pass_style(
        self, president: int, pass_styles: tuple[Array, Array], chance: Array
    ) -> None:
        """The president's hidden discard shows in what the chancellor enacted: add each
        president style's likelihood of the outcome (tiles drawn as believed before the
        pass, the chancellor's style mixture) to the president's style evidence."""
        drawn, tables = pass_styles  # (A, d), (A, d, p, K)
        chancellor = self._style_weights([self.session.chancellor])[:, 0, :]  # type: ignore[union-attr]
        enact = np.einsum("apk,ak->ap", chance, chancellor)
        likelihood = np.einsum("ad,adpk,ap->ak", drawn, tables, enact)
        self.style_ll[:, president, :] += np.log(np.maximum(likelihood, 1e-300))
        self._weights_of.pop(president, None)

    # --- the deck ---------------------------------------------------------------------

    def _chaos(self, policy: Policy) -> None:
        """A chaos top-deck: the top tile of the peeked block if any, else of the pile."""
        liberal = policy is Policy.LIBERAL
        if self.block_size:
            on_top = np.arange(self.joint.shape[1]) - self.block_out
            valid = (on_top >= 0) & (on_top <= self.block_size)
            chance_liberal = np.where(valid, on_top / self.block_size, 0.0)
            chance = chance_liberal if liberal else np.where(valid, 1.0 - chance_liberal, 0.0)
            self._weigh(chance[None, :, None, None, None])
            self.block_out += liberal
            self.block_size -= 1
        else:
            pile = self.draw_pile
            r = np.arange(self.depth)
            if liberal:
                shifted = np.zeros_like(self.joint)
                shifted[:, :, :-1] = (
                    self.joint[:, :, 1:] * (r[1:] / pile)[None, None, :, None, None]
                )
                total = float(shifted.sum())
                if total > 0:
                    self.joint = shifted / total
                else:
                    self.inconsistent += 1
            else:
                self._weigh(np.clip((pile - r) / pile, 0.0, None)[None, None, :, None, None])
        self.draw_pile -= 1

    def _reshuffle(self, size: int) -> None:
        """Draw and discard piles shuffled together: the new pile's Liberal count is known."""
        remaining = self.setup.liberal_tiles - self.liberal_policies
        collapsed = np.zeros_like(self.joint)
        collapsed[:, :, remaining] = self.joint.sum(axis=2)
        self.joint = collapsed
        self.draw_pile = size
        self.block_size = self.block_out = 0
        self._drop_spent_block()

    def _drop_spent_block(self) -> None:
        """Forget the peek axis once the block is gone and its claim window closed."""
        if self.joint.shape[1] > 1 and self.block_size == 0 and self.peek_window is None:
            self.joint = self.joint.sum(axis=1, keepdims=True)

    def _peek(self, president: int) -> None:
        if self.joint.shape[1] > 1:  # a previous peek's block is always drawn by now
            self.joint = self.joint.sum(axis=1, keepdims=True)
        matrix = _peek_matrix(self.depth, self.draw_pile)
        self.joint = np.einsum("azrdp,rjs->ajsdp", self.joint, matrix)
        self.block_size, self.block_out = 3, 0
        self.peek_window = president

    # --- claims -----------------------------------------------------------------------

    def _president_claimed(self, event: ev.PresidentClaimed) -> None:
        session = self.session
        if session is None or session.enacted is None or session.president != event.president:
            return
        if session.president_claimed:
            return
        session.president_claimed = True
        if event.president == self.seat:
            return
        outcome = PRESIDENT_CLAIM_INDEX.get(
            (_liberal_count(event.drew), _liberal_count(event.passed))
        )
        if outcome is None:
            return
        p_roles, c_roles = self.roles[:, session.president], self.roles[:, session.chancellor]
        table = self._stack("president_claim")
        chance = table[p_roles, c_roles, :, :, session.enacted, outcome]
        self._weigh_move(session.president, chance[:, None, None])

    def _chancellor_claimed(self, event: ev.ChancellorClaimed) -> None:
        session = self.session
        if session is None or session.enacted is None or session.chancellor != event.chancellor:
            return
        if session.chancellor_claimed:
            return
        session.chancellor_claimed = True
        if event.chancellor == self.seat:
            return
        c_roles, p_roles = self.roles[:, session.chancellor], self.roles[:, session.president]
        received = _liberal_count(event.received)
        table = self._stack("chancellor_claim")
        chance = table[c_roles, p_roles, :, session.enacted, received]
        self._weigh_move(session.chancellor, chance[:, None, None, None])

    def _peek_claimed(self, event: ev.PeekClaimed) -> None:
        if self.peek_window != event.president:
            return
        self.peek_window = None
        if event.president != self.seat:
            roles, said = self.roles[:, event.president], _liberal_count(event.tiles)
            chance = self._stack("peek_claim")[roles, :, said]
            self._weigh_move(event.president, chance[:, :, None, None, None])
        self._drop_spent_block()

    def _investigation_claimed(self, event: ev.InvestigationClaimed) -> None:
        if self.investigation_window != (event.president, event.target):
            return
        self.investigation_window = None
        if event.president == self.seat:
            return
        outcome = CLAIM_FASCIST if event.party is Party.FASCIST else CLAIM_LIBERAL
        p_roles, t_roles = self.roles[:, event.president], self.roles[:, event.target]
        chance = self._stack("investigation_claim")[p_roles, t_roles, outcome]
        self._weigh_move(event.president, chance[:, None, None, None, None])


class PosteriorSampler:
    """Draws determinizations from a belief's posterior; cheap after construction.

    Built once per decision (a cumulative distribution over the nonzero cells of the
    joint), then `sample` costs one bisection.
    """

    def __init__(self, belief: Belief) -> None:
        joint = belief.joint
        flat = joint.reshape(-1)
        self._cells = np.flatnonzero(flat)
        cumulative = np.cumsum(flat[self._cells])
        self._total = float(cumulative[-1])
        self._cumulative: list[float] = cumulative.tolist()
        self._shape = joint.shape
        self._roles = belief.roles
        self._block_size, self._block_out = belief.block_size, belief.block_out
        stage = belief.session.stage if belief.session is not None else None
        self._hand_axis = {"drawn": 3, "passed": 4}.get(stage or "")
        self._cache: dict[int, BeliefSample] = {}

    def sample(self, rng: random.Random) -> BeliefSample:
        """One determinization, drawn with its posterior probability."""
        index = bisect.bisect_right(self._cumulative, rng.random() * self._total)
        index = min(index, len(self._cumulative) - 1)
        found = self._cache.get(index)
        if found is None:
            found = self._cache[index] = self._decode(int(self._cells[index]))
        return found

    def sample_many(self, count: int, rng: random.Random) -> list[BeliefSample]:
        """`count` independent determinizations."""
        return [self.sample(rng) for _ in range(count)]

    def _decode(self, cell: int) -> BeliefSample:
        a, j, r, d, p = (int(i) for i in np.unravel_index(cell, self._shape))
        on_top = j - self._block_out if self._block_size else 0
        hand = {3: d, 4: p}.get(self._hand_axis) if self._hand_axis else None
        return BeliefSample(
            roles=tuple(ROLE_OF_CODE[i] for i in self._roles[a]),
            draw_liberals=r + on_top,
            top_size=self._block_size,
            top_liberals=on_top,
            hand_liberals=hand,
        )
