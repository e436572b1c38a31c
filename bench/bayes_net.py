"""The two-player Bayesian network baseline: governments judged one session at a time.

The simpler update found in write-ups on Secret Hitler inference: each seat has a
probability of being on the Fascist team; after every legislative session the
president and the chancellor are updated *against each other* with a two-node network
(is the president Fascist? is the chancellor?) whose likelihood for the enacted policy
assumes everyone plays for their party:

- both Liberal: a Fascist policy only from an all-Fascist draw, P(d = 0);
- exactly one Fascist: a Fascist policy whenever the draw holds one, P(d <= 1)
  (a Fascist president discards a Liberal from L+F+F; a Fascist chancellor enacts the
  Fascist tile a Liberal president passes from L+F+F);
- both Fascist: unless the draw is all Liberal, P(d <= 2);

with the draw d (Liberal tiles among three) hypergeometric from the tiles not yet
enacted. The two posteriors replace the two priors, then every seat not known for
sure (the two included) is rescaled so the team sizes add up (one Hitler,
`fascists + 1` on the team), and P(Hitler) is the team probability shared evenly
within the team. Nothing else is used: no votes, claims, powers or deck tracking. It
only predicts; it is not an agent.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from agents.belief import Marginals, hypergeom
from engine import Policy, Role, Setup
from engine import events as ev

Array = npt.NDArray[np.float64]


class BayesNetBelief:
    """Per-seat P(Fascist team) from pairwise session updates (see the module docstring)."""

    def __init__(self, setup: Setup, seat: int | None = None) -> None:
        self.setup = setup
        self.seat = seat
        self.players = setup.players
        self.team = setup.fascists + 1
        self.fascist: Array = np.full(self.players, self.team / self.players)
        self.known: dict[int, Role] = {}
        self.government: tuple[int, int] | None = None
        self.liberal_policies = 0
        self.fascist_policies = setup.fascist_policies_at_start

    def update(self, event: ev.Event) -> None:
        """Process one event (ignored if this seat may not see it)."""
        if not event.visible_to(self.seat):
            return
        match event:
            case ev.RoleDealt():
                self.known[event.seat] = event.role
                self.known.update(dict(event.known))
                self._normalise()
            case ev.ElectionResult(elected=True):
                self.government = (event.president, event.chancellor)
            case ev.PolicyEnacted(chaos=False):
                if self.government is not None:
                    self._session(*self.government, event.policy)
                self.liberal_policies = event.liberal_policies
                self.fascist_policies = event.fascist_policies
            case ev.PolicyEnacted():
                self.liberal_policies = event.liberal_policies
                self.fascist_policies = event.fascist_policies

    def _draw_chances(self) -> tuple[float, float, float]:
        """P(d = 0), P(d <= 1), P(d <= 2) for a draw from the tiles not yet enacted."""
        liberals = self.setup.liberal_tiles - self.liberal_policies
        fascists = self.setup.fascist_tiles + self.setup.fascist_policies_at_start
        pile = liberals + max(0, fascists - self.fascist_policies)
        pmf = [hypergeom(pile, liberals, 3, d) for d in range(4)]
        return pmf[0], pmf[0] + pmf[1], pmf[0] + pmf[1] + pmf[2]

    def _session(self, president: int, chancellor: int, policy: Policy) -> None:
        none, one, two = self._draw_chances()
        chance_fascist = np.array([[none, one], [one, two]])  # [president F?, chancellor F?]
        likelihood = chance_fascist if policy is Policy.FASCIST else 1.0 - chance_fascist
        prior_p, prior_c = self.fascist[president], self.fascist[chancellor]
        joint = np.outer([1.0 - prior_p, prior_p], [1.0 - prior_c, prior_c]) * likelihood
        total = joint.sum()
        if total <= 0:
            return
        joint /= total
        self.fascist[president] = joint[1].sum()
        self.fascist[chancellor] = joint[:, 1].sum()
        self._normalise()

    def _normalise(self) -> None:
        """Pin known seats, then rescale all the others so the team adds up to its size."""
        free = [s for s in range(self.players) if s not in self.known]
        left = self.team - sum(1 for r in self.known.values() if r is not Role.LIBERAL)
        self._rescale(free, left)

    def _rescale(self, free: list[int], left: float) -> None:
        """Scale the free seats to total `left`, each capped at 1."""
        for s, role in self.known.items():
            self.fascist[s] = 0.0 if role is Role.LIBERAL else 1.0
        for _ in range(20):  # rescale, capping at 1, until the mass fits
            capped = [s for s in free if self.fascist[s] >= 1.0]
            open_seats = [s for s in free if s not in capped]
            mass = float(self.fascist[open_seats].sum()) if open_seats else 0.0
            target = left - len(capped)
            if not open_seats:
                break
            if mass <= 0:  # nothing to scale: share the mass evenly
                self.fascist[open_seats] = target / len(open_seats)
                break
            self.fascist[open_seats] *= target / mass
            if np.all(self.fascist[free] <= 1.0 + 1e-12):
                break
            np.clip(self.fascist, 0.0, 1.0, out=self.fascist)

    def hitler(self) -> Array:
        """Per seat P(Hitler): the team probability shared evenly within the team."""
        out = np.zeros(self.players)
        hitler_known = [s for s, r in self.known.items() if r is Role.HITLER]
        if hitler_known:
            out[hitler_known[0]] = 1.0
            return out
        free_fascist = [
            s for s in range(self.players) if s not in self.known or self.known[s] is Role.FASCIST
        ]
        free = [s for s in free_fascist if s not in self.known]
        left = self.team - sum(1 for r in self.known.values() if r is not Role.LIBERAL)
        if free and left > 0:
            out[free] = self.fascist[free] / left
        return out

    def party_fascist(self) -> Array:
        """Per seat P(Fascist team), Hitler included."""
        return self.fascist.copy()

    def marginals(self) -> Marginals:
        """Per seat (P(Liberal), P(Fascist), P(Hitler)), the shape `Belief.marginals` has."""
        hitler = self.hitler()
        return tuple(
            (float(1.0 - f), float(max(0.0, f - h)), float(h))
            for f, h in zip(self.fascist, hitler, strict=True)
        )
