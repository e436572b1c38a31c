"""Belief-ISMCTS: ISMCTS guided by the exact Bayesian belief and an opponent model.

It configures the search driver (`agents.search_agent.SearchAgent`) as SO-ISMCTS
(`agents.ismcts`) does, with three parts changed:

- the determinization source (`make_sampler`): determinizations come from the seat's
  exact posterior (`agents.belief.Belief`): a role assignment and the Liberal tiles in
  the draw pile (and in a peeked block, and in the hand in play) drawn jointly with
  their posterior probability. `BeliefSampler` turns those counts into a concrete pile
  consistent with what the seat saw (its own peek, in order, on top), the discard pile
  by conservation of tiles, and checks every draw against the seat's hard knowledge
  (`agents.determinize`): a draw that contradicts it (none should) is replaced by a
  uniform one and counted.
- the tree policy (`tree_policy`: `agents.model_search.ModelTree`): the tree holds only
  this seat's own decisions; every other seat, in the tree and in the playout, is one
  of `agents.playouts.ModelPlayers` acting on the role it holds in the determinization
  and on the table's public suspicion (a share of them, `wild`, vote and pick at
  random, as careless players do). Every root move is played on the same
  determinization and dice ("paired root"), so the comparison between moves is not
  drowned in the luck of the deal. In SO-ISMCTS other seats' moves are chosen by UCB
  over statistics pooled across their possible roles, which in a hidden-role game
  makes them play as no real player would.
- the playout policy: the same model players (`agents.playouts.play_model`) instead
  of uniformly random moves.

Claims: the truth as a Liberal, chosen lies as a Fascist (`agents.claiming`).

The agent keeps two beliefs up to date from the events it is shown: its own, and the
table's (public events only) for the opponent model. Both are pure functions of the
view's events, so an agent rebuilt in another process from its spec decides exactly
as a long-lived one. Beliefs are secrets of a live game: nothing here logs them.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import ClassVar

from engine import Action, Claim, Phase, PlayerView, Role, Setup, Variant, Vote
from engine import events as ev
from engine.chance import shuffle
from engine.fastsim import RESHUFFLE_SEED_BITS, ROLE_CODE, FastGame, view_variant
from engine.variants import HITLER_ZONE

from .base import Budget
from .behaviour import reading_model
from .belief import Belief, PosteriorSampler
from .belief_agent import liberal_ballot
from .belief_cache import belief_after
from .claiming import claim_for
from .determinize import Sampler, UniformSampler
from .model_search import ModelTree
from .playouts import TableModel
from .search import TreePolicy
from .search_agent import DEFAULT_EXPLORATION, SearchAgent

# Iterations a decision runs by default (the paper's budget): about 0.75 s of CPU per
# 10-player decision on this machine, under the bot's 2 s (measured on bench positions).
DEFAULT_ITERATIONS = 10_000

# The share of other seats the opponent model lets vote and pick targets at random.
DEFAULT_WILD = 0.4
# A Liberal casts its sincere ballot (`liberal_ballot`) and searches none. Until
# 2026-11-27 it searched (capped at BALLOT_ITERATIONS) and followed the search when
# Ja's and Nein's paired games differed clearly (by 3% of the games and twice their
# noise; at 200 iterations the share alone let noise decide and cost 6 Liberal points,
# bench/results/README.md, "The regression found"). Since a ballot search plays only the
# games its ballot decides, no capped Liberal margin was ever clear: 0 of 319 in
# `python bench/ballot_noise.py --games 8 --seed 1 --full 1000`, where that rule now
# lives. So every such search cast the sincere ballot anyway, and took its time from the
# decisions the table waits on (at four loaded tables half the decisions are Liberal ballots).
# A ballot's search stops here whatever the budget: nine AI seats vote at once, and
# iterations spent on ballots are taken from the nominations, hands and powers of every
# game sharing the machine (at four 10-player tables, 350 of 437 decisions are ballots:
# `bench/ai_load_bench.py`'s by_phase). A Liberal with a belief searches none (above),
# so this caps a Liberal's ballot only without one (a custom deck); a Fascist's or
# Hitler's ballot is its search's, and 200 iterations cost
# the Fascist team a lot: 0.744 as a Fascist over 250 games at 8,000 iterations, against
# 0.857 with every decision at 10,000 (bench/results/README.md).
BALLOT_ITERATIONS = 200
# A Fascist's or Hitler's ballot is capped only on a clock (a budget in seconds or a
# deadline: the machine is shared) and there at this; with an iteration budget it runs
# the whole budget. At 10,000 iterations the cap cost the Fascist team 7 points (0.855
# against 0.782 as a Fascist over the same 800 games; bench/results/README.md, "Fascist
# ballots at the whole budget"). The `fascist_ballots` option sets the cap for any
# budget (an A/B at the load's iterations). Since a ballot search plays only the games
# its ballot decides (`agents.model_search`) these iterations cost a third of the time;
# 6,000 at four loaded tables bought Fascist ballots little (1,772 iterations, p50)
# and cost nominations most of theirs (747 against 1,917; bench/results/README.md).
FASCIST_BALLOT_ITERATIONS = 2_000


class BeliefSampler(UniformSampler):
    """Determinizations drawn from a `Belief`'s posterior, made concrete for `FastGame`.

    Inherits the uniform sampler's hard knowledge (allowed deals, `deck_knowledge`)
    and uses it to place the seat's own peek and to vet each draw. `fallbacks` counts
    draws that had to be replaced by a uniform one (contradicting hard knowledge).
    """

    def __init__(self, view: PlayerView, belief: Belief, variant: Variant | None = None) -> None:
        super().__init__(view, variant)
        self.posterior: PosteriorSampler = belief.sampler()
        setup = belief.setup
        self.liberal_left = setup.liberal_tiles - view.liberal_policies
        self.pile_size = view.draw_pile
        self._allowed = {tuple(roles): roles for roles in self.assignments}
        # (discard Liberal, hand Fascist, Liberal among unknown pile positions) possible.
        self._possible = {
            o for o, w in zip(self.deck.outcomes, self.deck.weights, strict=True) if w
        }
        self._known_liberal = self.deck.pile_known.count(0)
        self._roles: dict[tuple[Role, ...], list[int] | None] = {}
        self.fallbacks = 0

    def _codes(self, roles: tuple[Role, ...]) -> list[int] | None:
        """The assignment as role codes, None if hard knowledge rules it out."""
        if roles not in self._roles:
            codes = tuple(ROLE_CODE[r] for r in roles)
            self._roles[roles] = self._allowed.get(codes)
        return self._roles[roles]

    def draw(self, rng: random.Random) -> tuple[list[int], list[int], int, int, int] | None:
        """(roles, pile, discard Liberal, discard Fascist, hand Fascist), or None if the
        posterior's draw contradicts the seat's hard knowledge."""
        d = self.posterior.sample(rng)
        roles = self._codes(d.roles)
        if roles is None:
            return None
        deck = self.deck
        hand_l = d.hand_liberals if deck.hand_size else 0
        if hand_l is None:
            return None
        hand_f = deck.hand_size - hand_l
        discard_l = self.liberal_left - d.draw_liberals - hand_l
        unknown_l = d.draw_liberals - self._known_liberal
        if (discard_l, hand_f, unknown_l) not in self._possible:
            return None
        if self._peeked:  # the seat's own peek, in order; the rest shuffled
            tiles = self._pile_tiles[unknown_l][:]
            shuffle(tiles, rng)
            pile = list(deck.pile_known)
            for position, tile in zip(self._unknown_positions, tiles, strict=True):
                pile[position] = tile
        elif d.top_size:  # someone else's peeked block on top holds top_liberals
            top = [0] * d.top_liberals + [1] * (d.top_size - d.top_liberals)
            rest_size = self.pile_size - d.top_size
            rest_l = d.draw_liberals - d.top_liberals
            if not 0 <= rest_l <= rest_size:
                return None
            rest = [0] * rest_l + [1] * (rest_size - rest_l)
            shuffle(top, rng)
            shuffle(rest, rng)
            pile = top + rest
        else:
            pile = self._pile_tiles[unknown_l][:]
            shuffle(pile, rng)
        return roles, pile, discard_l, deck.discard_size - discard_l, hand_f

    def game(self, rng: random.Random) -> FastGame:
        """A fresh determinized game: from the posterior, or uniform if it contradicts."""
        drawn = self.draw(rng)
        if drawn is None:
            self.fallbacks += 1
            return super().game(rng)
        roles, pile, discard_l, discard_f, hand_f = drawn
        votes = self.sample_votes(roles, rng)
        return self.template.determinized(
            roles, pile, discard_l, discard_f, hand_f, votes, rng.getrandbits(RESHUFFLE_SEED_BITS)
        )


class BeliefISMCTSAgent(SearchAgent):
    """ISMCTS with posterior determinizations, opponent-model playouts and claims.

    Options: `exploration` (UCB1's c), `variant` (custom decks), `wild` (the share of
    other seats the model lets play at random), `fit` (a behaviour fit file for the
    beliefs instead of the shipped one), `styles` (the style prior of the beliefs'
    mixture, see `agents.behaviour.reading_model`) and `fascist_ballots` (the cap of a
    Fascist's or Hitler's ballot search, see FASCIST_BALLOT_ITERATIONS).
    Without a budget a decision runs `DEFAULT_ITERATIONS` iterations.
    """

    name: ClassVar[str] = "belief-ismcts"

    def __init__(
        self,
        seat: int,
        seed: int | None = None,
        budget: Budget | None = None,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        variant: Variant | None = None,
        wild: float = DEFAULT_WILD,
        fit: Path | None = None,
        styles: tuple[float, ...] | None = None,
        fascist_ballots: int | None = None,
    ) -> None:
        super().__init__(seat, seed, budget, exploration=exploration, variant=variant)
        self.wild = wild
        self.fascist_ballots = fascist_ballots  # None: FASCIST_BALLOT_ITERATIONS on a clock
        self.fit = fit  # a behaviour fit file for both beliefs; None: the shipped fit
        self.styles = styles  # a style prior for the beliefs' mixture; None: the shipped one
        self.belief: Belief | None = None  # this seat's posterior
        self.table: Belief | None = None  # the public posterior (opponent model)
        self.model: TableModel | None = None  # built per decision from `table`
        self.sampler: Sampler | None = None  # the last decision's sampler

    # --- beliefs ----------------------------------------------------------------------

    def _setup(self, view: PlayerView) -> Setup | None:
        """The game's setup, None if the view does not say (a custom deck, no variant)."""
        if self.variant is not None:
            return self.variant.setup(view.players)
        if view.variant == "custom":
            return None
        return view_variant(view).setup(view.players)

    def observe(self, view: PlayerView) -> None:
        """Build the beliefs on the first view, then feed them every new event."""
        if self.belief is None and self.seen == 0:
            setup = self._setup(view)
            if setup is not None:
                behaviour = reading_model(setup.players, self.fit, self.styles)
                self.belief = belief_after(setup, self.seat, view.events, behaviour)
                self.table = belief_after(setup, None, view.events, behaviour)
                self.seen = len(view.events)  # both beliefs have read them
        super().observe(view)

    def on_event(self, event: ev.Event, view: PlayerView) -> None:
        """Both beliefs skip what they may not see (the table sees public events only)."""
        if self.belief is not None and self.table is not None:
            self.belief.update(event)
            self.table.update(event)

    # --- the driver's parts, per decision -------------------------------------------

    def make_sampler(self, view: PlayerView) -> Sampler:
        """Posterior determinizations (uniform without a belief)."""
        if self.belief is not None:
            sampler: Sampler = BeliefSampler(view, self.belief, self.variant)
        else:
            sampler = UniformSampler(view, self.variant)
        self.sampler = sampler
        return sampler

    def tree_policy(self, view: PlayerView) -> TreePolicy:
        """This seat's decisions only; the opponent model (from the table's belief, or
        uniform suspicion without one) plays everyone else and finishes the games."""
        if self.table is not None:
            self.model = self._table_model(self.table)
        else:
            fascists = (self.variant or view_variant(view)).setup(view.players).fascists
            self.model = TableModel.uniform(view.players, fascists, self.wild)
        return ModelTree(self.model, self.exploration)

    def _table_model(self, table: Belief) -> TableModel:
        """The opponent model from the table's belief."""
        return TableModel.build(
            [float(x) for x in table.party_fascist()],
            [float(x) for x in table.hitler()],
            self.wild,
        )

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        """Search and take the best move. Ballots: a Liberal with a belief casts its
        sincere ballot unsearched; anyone else casts a tie as the table expects."""
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        belief = self.belief
        if view.phase is Phase.VOTE and view.role is Role.LIBERAL and belief is not None:
            # A Liberal votes its conscience: a table where Liberals vote down the
            # governments they distrust stops many Fascist ones (see BALLOT_ITERATIONS).
            trust, hitler = belief.pair_liberal(), belief.hitler()
            return Vote(self.seat, liberal_ballot(view, self.seat, trust, hitler))
        result = self.search(view, rng)
        if view.phase is not Phase.VOTE or self.model is None:
            return result.best_action()
        root = result.root
        if root.wins[1] == root.wins[0]:  # Ja's and Nein's paired games end alike
            return Vote(self.seat, self._expected_ballot(view, self.model))
        return result.best_action()

    def _expected_ballot(self, view: PlayerView, model: TableModel) -> bool:
        """The ballot that says nothing new: a teammate's government for a Fascist who
        knows the team, else what the table's trust in the government suggests."""
        president, chancellor = view.president, view.chancellor
        assert chancellor is not None
        known = view.known_roles
        if view.role is Role.FASCIST or (view.role is Role.HITLER and view.players <= 6):
            # This seat knows the team: back a government that holds a teammate.
            return any(known[s] not in (None, Role.LIBERAL) for s in (president, chancellor))
        zone = int(view.fascist_policies >= HITLER_ZONE)
        return model.liberal_ja[zone][president * view.players + chancellor] >= 0.5

    def iteration_limit(self, view: PlayerView | None = None) -> tuple[int | None, float | None]:
        """(iterations, seconds) from the budget; iterations default to DEFAULT_ITERATIONS.
        A Liberal's ballot (searched only without a belief) runs at most
        BALLOT_ITERATIONS; a Fascist's or Hitler's at most
        `fascist_ballots`, else FASCIST_BALLOT_ITERATIONS on a clock (see there) unless
        the budget is `alone` (no other table's decisions to leave time to)."""
        budget = self.budget
        iterations, seconds = budget.iterations, budget.seconds
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        if view is not None and view.phase is Phase.VOTE:
            cap = BALLOT_ITERATIONS if view.role is Role.LIBERAL else self.fascist_ballots
            on_clock = seconds is not None or budget.deadline is not None
            if cap is None and on_clock and not budget.alone:
                cap = FASCIST_BALLOT_ITERATIONS
            if cap is not None:
                iterations = min(iterations or cap, cap)
        return iterations, seconds

    # --- claims -----------------------------------------------------------------------

    def speak(self, view: PlayerView, rng: random.Random) -> Claim | None:
        """The truth as a Liberal; a covering or framing lie as a Fascist when useful."""
        return claim_for(view, rng)
