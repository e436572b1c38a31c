"""Every parameter of the behaviour model the belief uses, in one place.

The exact belief (`agents.belief`) needs to know how likely each role is to take each
public action: vote Ja, nominate someone, discard a Liberal, lie in a claim. Those
likelihoods live here, in one frozen dataclass of probability tables. They are loaded
from `agents/behaviour_fitted.json` (written by `python -m agents.fit_behaviour`, which
counts what the project's agents actually do in simulated games) and fall back to the
hand-set defaults of `default_behaviour()` when that file is absent.

Conventions shared by every table:

- a role index is 0 Liberal, 1 Fascist, 2 Hitler (`engine.fastsim.ROLE_CODE`);
- `zone` is 1 once three or more Fascist policies are on the board (the "Hitler zone",
  where electing Hitler chancellor wins), else 0;
- tile counts are numbers of Liberal tiles: `d` drawn by the president (0..3), `p`
  passed to the chancellor (0..2), `j` seen in a policy peek (0..3);
- `enacted` is 0 Liberal policy, 1 Fascist policy, 2 agenda vetoed;
- a role that knows nobody's role (a Liberal, and Hitler at 7+ players) acts on the
  public record, its own role and its own private sightings only. Given the public
  record its votes, nominations and power targets are therefore independent of the
  other seats' roles, so those rows are constant across them (`blind_roles`): reading
  them as evidence would count the public record a second time;
- every probability a legal action can have is kept away from 0 (`FLOOR`), so play the
  model did not expect weakens an assignment without ruling it out. A Liberal's lie is
  no exception: people lie as Liberals (to bait, or by mistake), so it is rare, never
  impossible. Only the rules' hard facts are zeros, and those the belief applies itself.

One `Behaviour` is one *style* of play. People differ, so the belief reads each seat
with a `Styles` mixture (`robust_styles`): the fitted bots, the hand-set sensible
human, a role-blind "chaotic" player and uniform noise, with a prior over them that
the belief updates per seat from that seat's own moves. A seat whose play fits no
role's style drifts to the blind styles, and its moves stop counting as evidence.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.fastsim import FASCIST_ROLE, HITLER_ROLE, LIBERAL_ROLE

log = logging.getLogger(__name__)

Table = npt.NDArray[np.float64]

FITTED_PATH = Path(__file__).with_name("behaviour_fitted.json")
FLOOR = 1e-3  # the least probability a legal action keeps (Liberal lies excepted)

PRESIDENT_POS, CHANCELLOR_POS, OTHER_POS = 0, 1, 2
ENACTED_LIBERAL, ENACTED_FASCIST, VETOED = 0, 1, 2
INVESTIGATE_POWER, SPECIAL_ELECTION_POWER, EXECUTION_POWER = 0, 1, 2

# A president's claim (drew d Liberal tiles, passed p): the six consistent pairs, then
# silence. Index into the last axis of `president_claim`.
PRESIDENT_CLAIMS: tuple[tuple[int, int], ...] = ((0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2))
PRESIDENT_CLAIM_INDEX = {claim: i for i, claim in enumerate(PRESIDENT_CLAIMS)}
PRESIDENT_SILENT = len(PRESIDENT_CLAIMS)
CHANCELLOR_SILENT = 3  # outcomes 0..2: received that many Liberal tiles
PEEK_SILENT = 4  # outcomes 0..3: that many Liberal tiles on top
CLAIM_LIBERAL, CLAIM_FASCIST, INVESTIGATION_SILENT = 0, 1, 2


def president_claim_legal(claim: int, enacted: int) -> bool:
    """Whether president-claim outcome `claim` can be made after a session ending `enacted`."""
    if claim == PRESIDENT_SILENT:
        return True
    passed = PRESIDENT_CLAIMS[claim][1]
    if enacted == ENACTED_LIBERAL:
        return passed >= 1
    if enacted == ENACTED_FASCIST:
        return passed <= 1
    return True


def chancellor_claim_legal(claim: int, enacted: int) -> bool:
    """Whether chancellor-claim outcome `claim` can be made after a session ending `enacted`."""
    if claim == CHANCELLOR_SILENT:
        return True
    if enacted == ENACTED_LIBERAL:
        return claim >= 1
    if enacted == ENACTED_FASCIST:
        return claim <= 1
    return True


def president_truth_possible(d: int, p: int, enacted: int) -> bool:
    """Whether a president who drew `d` and passed `p` Liberal tiles fits `enacted`."""
    if p not in (d - 1, d) or not 0 <= p <= 2:
        return False
    return chancellor_claim_legal(p, enacted)


@dataclass(frozen=True, eq=False)
class Behaviour:
    """How likely each role is to take each public action: the belief's likelihoods.

    Every field is a numpy table; the axes are listed in each field's docstring (see
    the module docstring for the index conventions). Liberal rows describe the table's
    Liberals as a population: they do not know roles, but their play still correlates
    with the truth (a Liberal who reads the table well nominates fewer Fascists).
    """

    vote_ja: Table
    """P(Ja) by [voter role, voter position (president, chancellor, other), president
    role, chancellor role, zone]. Fascists back governments holding a Fascist."""

    nominate_weight: Table
    """Choice weight of a chancellor nominee by [president role, nominee role, zone]:
    the president picks an eligible seat with probability proportional to its weight."""

    target_weight: Table
    """Choice weight of a power's target by [power (investigate, special election,
    execution), president role, target role], normalised over the legal targets."""

    discard_liberal: Table
    """P(president discards a Liberal tile) by [role, chancellor role, d Liberal tiles
    drawn, zone]. Forced for d = 0 (never) and d = 3 (always); values there are ignored."""

    enact_fascist: Table
    """P(chancellor enacts the Fascist tile of a Liberal+Fascist hand) by [role,
    president role, zone]."""

    veto_propose: Table
    """P(chancellor proposes a veto, once unlocked) by [role, p Liberal tiles held]."""

    veto_agree: Table
    """P(president agrees to a proposed veto) by [role, p Liberal tiles passed]."""

    president_claim: Table
    """P(claim outcome) by [president role, chancellor role, d drawn, p passed,
    enacted, outcome]: outcomes are `PRESIDENT_CLAIMS` (drew, passed) then silence.
    Each row sums to 1 over the outcomes legal after `enacted`; Liberals tell the truth."""

    chancellor_claim: Table
    """P(claim outcome) by [chancellor role, president role, p received, enacted,
    outcome]: outcomes are 0..2 Liberal tiles received, then silence (index 3)."""

    peek_claim: Table
    """P(claim outcome) by [president role, j Liberal tiles seen, outcome]: outcomes
    0..3 Liberal tiles claimed, then silence (index 4)."""

    investigation_claim: Table
    """P(claim outcome) by [president role, target role, outcome]: outcomes claim
    Liberal, claim Fascist, silence."""

    def __post_init__(self) -> None:
        for f in fields(self):
            table = np.asarray(getattr(self, f.name), dtype=np.float64)
            expected = SHAPES[f.name]
            if table.shape != expected:
                raise ValueError(f"Behaviour.{f.name} has shape {table.shape}, not {expected}.")
            if not np.all(np.isfinite(table)) or np.any(table < 0):
                raise ValueError(f"Behaviour.{f.name} holds a negative or non-finite value.")
            table.setflags(write=False)
            object.__setattr__(self, f.name, table)

    def pass_probabilities(self, zone: int) -> Table:
        """P(p passed | role, chancellor role, d drawn) as a [role, partner, d, p] table."""
        out = np.zeros((3, 3, 4, 3))
        q = self.discard_liberal[:, :, :, zone]
        out[:, :, 0, 0] = 1.0
        out[:, :, 1, 0], out[:, :, 1, 1] = q[:, :, 1], 1.0 - q[:, :, 1]
        out[:, :, 2, 1], out[:, :, 2, 2] = q[:, :, 2], 1.0 - q[:, :, 2]
        out[:, :, 3, 2] = 1.0
        return out

    def enact_probabilities(self, zone: int) -> Table:
        """P(enacted | role, president role, p held) as a [role, partner, p, (L, F)] table."""
        out = np.zeros((3, 3, 3, 2))
        e = self.enact_fascist[:, :, zone]
        out[:, :, 0, 1] = 1.0
        out[:, :, 1, 0], out[:, :, 1, 1] = 1.0 - e, e
        out[:, :, 2, 0] = 1.0
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: each table as nested lists."""
        return {f.name: np.round(getattr(self, f.name), 6).tolist() for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Behaviour:
        """Inverse of `to_dict` (shapes and values are validated)."""
        missing = [name for name in SHAPES if name not in data]
        if missing:
            raise ValueError(f"Behaviour data lacks {', '.join(missing)}.")
        return cls(**{name: np.asarray(data[name], dtype=np.float64) for name in SHAPES})


SHAPES: dict[str, tuple[int, ...]] = {
    "vote_ja": (3, 3, 3, 3, 2),
    "nominate_weight": (3, 3, 2),
    "target_weight": (3, 3, 3),
    "discard_liberal": (3, 3, 4, 2),
    "enact_fascist": (3, 3, 2),
    "veto_propose": (3, 3),
    "veto_agree": (3, 3),
    "president_claim": (3, 3, 4, 3, 3, len(PRESIDENT_CLAIMS) + 1),
    "chancellor_claim": (3, 3, 3, 3, 4),
    "peek_claim": (3, 4, 5),
    "investigation_claim": (3, 3, 3),
}


def normalise_claims(behaviour_tables: dict[str, Table]) -> None:
    """Make every claim row a distribution over its legal outcomes, in place.

    Illegal outcomes (a claim the engine refuses after that session) get 0, every legal
    one at least `FLOOR`: a Liberal's lie too (rare, never impossible).
    """
    president_legal = np.array(
        [[president_claim_legal(c, e) for c in range(PRESIDENT_SILENT + 1)] for e in range(3)]
    )
    chancellor_legal = np.array(
        [[chancellor_claim_legal(c, e) for c in range(CHANCELLOR_SILENT + 1)] for e in range(3)]
    )
    _normalise_rows(behaviour_tables["president_claim"], president_legal)
    _normalise_rows(behaviour_tables["chancellor_claim"], chancellor_legal)
    _normalise_rows(behaviour_tables["peek_claim"], np.ones(PEEK_SILENT + 1, dtype=bool))
    _normalise_rows(
        behaviour_tables["investigation_claim"], np.ones(INVESTIGATION_SILENT + 1, dtype=bool)
    )


def _normalise_rows(table: Table, legal: npt.NDArray[np.bool_]) -> None:
    """Rows over the last axis: 0 where not `legal` (broadcast from the right), the rest a
    distribution with every entry at least about `FLOOR`; an all-zero row goes uniform."""
    mask = np.broadcast_to(legal, table.shape)
    table[~mask] = 0.0
    total = table.sum(axis=-1, keepdims=True)
    uniform = mask / mask.sum(axis=-1, keepdims=True)
    table[...] = np.where(total > 0, table / np.where(total > 0, total, 1.0), uniform)
    table[...] = np.where(mask, np.maximum(table, FLOOR), 0.0)
    table /= table.sum(axis=-1, keepdims=True)


def clamp_probabilities(tables: dict[str, Table]) -> None:
    """Keep probabilities inside [FLOOR, 1 - FLOOR] and weights in [FLOOR, 1/FLOOR]."""
    for name in ("vote_ja", "discard_liberal", "enact_fascist", "veto_propose", "veto_agree"):
        np.clip(tables[name], FLOOR, 1.0 - FLOOR, out=tables[name])
    for name in ("nominate_weight", "target_weight"):
        np.clip(tables[name], FLOOR, 1.0 / FLOOR, out=tables[name])


# Per table, the axes that hold other seats' roles (the acting role is axis 0, or 1 for
# `target_weight`): a blind role's row must not vary along them.
OTHERS_AXES: dict[str, tuple[int, ...]] = {
    "vote_ja": (2, 3),
    "discard_liberal": (1,),
    "enact_fascist": (1,),
    "president_claim": (1,),
    "chancellor_claim": (1,),
}


def blind_roles(players: int | None) -> tuple[int, ...]:
    """Roles that know no other seat's role: Liberal, and Hitler at 7+ players."""
    return (LIBERAL_ROLE, HITLER_ROLE) if players is not None and players >= 7 else (LIBERAL_ROLE,)


def pool_blind(name: str, table: Table, blind: tuple[int, ...], *, mean: bool) -> Table:
    """`table` with each blind role's row summed (or averaged) over the others' roles.

    Summing counts then dividing gives the count-weighted rate the fit wants; averaging
    suits tables of rates. Tables without such axes come back unchanged (a copy).
    """
    out = np.array(table, dtype=np.float64)
    axes = tuple(a - 1 for a in OTHERS_AXES.get(name, ()))
    if not axes:
        return out
    for role in blind:
        row = out[role]
        pooled = row.mean(axis=axes, keepdims=True) if mean else row.sum(axis=axes, keepdims=True)
        out[role] = np.broadcast_to(pooled, row.shape)
    return out


def make_blind(tables: dict[str, Table], blind: tuple[int, ...]) -> None:
    """Make the blind roles' rows constant across the others' roles, in place."""
    for name in OTHERS_AXES:
        tables[name] = pool_blind(name, tables[name], blind, mean=True)
    for role in blind:
        tables["nominate_weight"][role] = 1.0
        tables["target_weight"][:, role] = 1.0


def default_behaviour(players: int | None = None) -> Behaviour:
    """Hand-set likelihoods used until a fit exists (rough play of sensible humans).

    Liberals mostly keep Liberal tiles, back most governments and rarely lie; Fascists
    back governments holding a Fascist, discard Liberal tiles about two times out of
    three (always with a Fascist chancellor), and lie in about half of their claims;
    Hitler plays like a cautious Fascist. Blind roles' rows ignore others' roles.
    """
    t: dict[str, Table] = {name: np.zeros(shape) for name, shape in SHAPES.items()}
    vote = t["vote_ja"]
    vote[:, PRESIDENT_POS] = vote[:, CHANCELLOR_POS] = 0.95
    vote[LIBERAL_ROLE, OTHER_POS] = 0.6
    vote[FASCIST_ROLE, OTHER_POS] = 0.8
    vote[FASCIST_ROLE, OTHER_POS, LIBERAL_ROLE, LIBERAL_ROLE] = 0.45
    vote[FASCIST_ROLE, OTHER_POS, :, HITLER_ROLE, 1] = 0.97
    vote[HITLER_ROLE, OTHER_POS] = 0.7
    vote[HITLER_ROLE, OTHER_POS, LIBERAL_ROLE, LIBERAL_ROLE] = 0.5
    nominate = t["nominate_weight"]
    nominate[:] = 1.0
    nominate[FASCIST_ROLE] = [[1.0, 1.0], [1.5, 1.5], [1.5, 4.0]]
    nominate[HITLER_ROLE] = [[1.0, 1.0], [1.2, 1.2], [1.0, 1.0]]
    target = t["target_weight"]
    target[:] = 1.0
    target[INVESTIGATE_POWER, FASCIST_ROLE] = [1.0, 0.7, 0.5]
    target[SPECIAL_ELECTION_POWER, FASCIST_ROLE] = [1.0, 1.5, 1.5]
    target[EXECUTION_POWER, FASCIST_ROLE] = [1.0, 0.2, 0.05]
    target[EXECUTION_POWER, HITLER_ROLE] = [1.0, 0.5, 1.0]
    discard = t["discard_liberal"]
    discard[:, :, 3, :] = 1.0
    discard[LIBERAL_ROLE, :, 1:3, :] = 0.05
    discard[FASCIST_ROLE, :, 1:3, :] = [[0.6, 0.75], [0.45, 0.6]]
    discard[FASCIST_ROLE, FASCIST_ROLE:, 1:3, :] = 0.9
    discard[HITLER_ROLE, :, 1:3, :] = [[0.4, 0.6], [0.3, 0.45]]
    enact = t["enact_fascist"]
    enact[LIBERAL_ROLE] = 0.05
    enact[FASCIST_ROLE] = [0.65, 0.85]
    enact[FASCIST_ROLE, FASCIST_ROLE:] = 0.9
    enact[HITLER_ROLE] = [0.45, 0.7]
    t["veto_propose"][:] = [[0.8, 0.05, 0.02], [0.05, 0.1, 0.7], [0.1, 0.1, 0.5]]
    t["veto_agree"][:] = [[0.9, 0.3, 0.05], [0.05, 0.5, 0.8], [0.1, 0.4, 0.6]]
    # Claims: truthful 0.95 / silent 0.05 for Liberals; the others' truth gets weight 10,
    # silence 1 and each lie 2 before normalisation (roughly half their claims are lies).
    pres = t["president_claim"]
    for d in range(4):
        for p in range(3):
            truth = PRESIDENT_CLAIM_INDEX.get((d, p))
            pres[:, :, d, p, :, :] = 2.0
            pres[:, :, d, p, :, PRESIDENT_SILENT] = 1.0
            pres[LIBERAL_ROLE, :, d, p, :, :] = 0.005  # a Liberal's lie: rare, not impossible
            pres[LIBERAL_ROLE, :, d, p, :, PRESIDENT_SILENT] = 0.05
            if truth is not None:
                pres[:, :, d, p, :, truth] = 10.0
                pres[LIBERAL_ROLE, :, d, p, :, truth] = 0.95
    chanc = t["chancellor_claim"]
    for p in range(3):
        chanc[:, :, p, :, :] = 2.0
        chanc[:, :, p, :, p] = 10.0
        chanc[:, :, p, :, CHANCELLOR_SILENT] = 1.0
        chanc[LIBERAL_ROLE, :, p, :, :] = 0.005
        chanc[LIBERAL_ROLE, :, p, :, p] = 0.95
        chanc[LIBERAL_ROLE, :, p, :, CHANCELLOR_SILENT] = 0.05
    peek = t["peek_claim"]
    for j in range(4):
        peek[:, j, :] = 2.0
        peek[:, j, j] = 10.0
        peek[:, j, PEEK_SILENT] = 1.0
        peek[LIBERAL_ROLE, j, :] = 0.005
        peek[LIBERAL_ROLE, j, j], peek[LIBERAL_ROLE, j, PEEK_SILENT] = 0.95, 0.05
    inv = t["investigation_claim"]
    inv[LIBERAL_ROLE] = [[0.95, 0.01, 0.05], [0.01, 0.95, 0.05], [0.01, 0.95, 0.05]]
    inv[FASCIST_ROLE] = [[0.5, 0.45, 0.05], [0.9, 0.05, 0.05], [0.9, 0.05, 0.05]]
    inv[HITLER_ROLE] = [[0.7, 0.25, 0.05], [0.5, 0.45, 0.05], [0.5, 0.45, 0.05]]
    make_blind(t, blind_roles(players))
    clamp_probabilities(t)
    normalise_claims(t)
    return Behaviour(**t)


# --- styles: how differently people play ----------------------------------------------

# Per table, every axis that holds a role (the actor's or another seat's).
ROLE_AXES: dict[str, tuple[int, ...]] = {
    "vote_ja": (0, 2, 3),
    "nominate_weight": (0, 1),
    "target_weight": (1, 2),
    "discard_liberal": (0, 1),
    "enact_fascist": (0, 1),
    "veto_propose": (0,),
    "veto_agree": (0,),
    "president_claim": (0, 1),
    "chancellor_claim": (0, 1),
    "peek_claim": (0,),
    "investigation_claim": (0, 1),
}
STYLE_NAMES = ("bot", "human", "chaotic", "noise")
# Prior over the styles of a seat nobody has seen play yet. Half the mass on noise caps
# what a surprising move can cost an assignment at a factor of about two, so a table of
# random or human-style players reads better than the uniform prior; the human style
# keeps bots fitted on other bots readable; the fit's own share is what a table of the
# bots it was fitted on costs. Chosen on nine pairs of the transfer bench over (0.5, 0.1,
# 0.1, 0.3) (two pairs below uniform), (0.4, 0.1, 0.1, 0.4), (0.3, 0.1, 0.1, 0.5) and
# others, checked on the full table and in play (bench/results/belief_transfer.md).
STYLE_PRIOR = (0.3, 0.15, 0.05, 0.5)


def role_blind(behaviour: Behaviour) -> Behaviour:
    """The same action frequencies with every role axis averaged out: play that says
    nothing about anyone's role (a chaotic player, or one the model cannot read)."""
    tables: dict[str, Table] = {}
    for f in fields(behaviour):
        table = np.asarray(getattr(behaviour, f.name))
        axes = ROLE_AXES[f.name]
        tables[f.name] = np.broadcast_to(table.mean(axis=axes, keepdims=True), table.shape).copy()
    normalise_claims(tables)
    return Behaviour(**tables)


def uniform_behaviour() -> Behaviour:
    """Noise: every legal action equally likely, whoever acts (votes and tile choices at
    even odds, choices uniform over the options); a claim window stays silent about half
    the time (many people never claim), else any legal claim is equally likely."""
    tables = {name: np.full(shape, 0.5) for name, shape in SHAPES.items()}
    for name in ("nominate_weight", "target_weight"):
        tables[name][:] = 1.0
    for name, silent, said in (
        ("president_claim", PRESIDENT_SILENT, 4.0),  # about as many legal claims
        ("chancellor_claim", CHANCELLOR_SILENT, 2.0),
        ("peek_claim", PEEK_SILENT, 4.0),
        ("investigation_claim", INVESTIGATION_SILENT, 2.0),
    ):
        tables[name][:] = 1.0
        tables[name][..., silent] = said
    normalise_claims(tables)
    return Behaviour(**tables)


def with_liberal_lies(behaviour: Behaviour) -> Behaviour:
    """`behaviour` with its claim rows renormalised so no legal claim has probability 0
    (fits written before Liberal lies were allowed hold exact zeros)."""
    tables = {f.name: np.array(getattr(behaviour, f.name)) for f in fields(behaviour)}
    normalise_claims(tables)
    return Behaviour(**tables)


@dataclass(frozen=True, eq=False)
class Styles:
    """A mixture of play styles: one `Behaviour` each, and the prior over them per seat."""

    names: tuple[str, ...]
    behaviours: tuple[Behaviour, ...]
    prior: tuple[float, ...]

    def __post_init__(self) -> None:
        if not len(self.names) == len(self.behaviours) == len(self.prior) >= 1:
            raise ValueError("Styles need one name, behaviour and prior weight each.")
        if any(w <= 0 for w in self.prior) or abs(sum(self.prior) - 1.0) > 1e-9:
            raise ValueError("A style prior is positive and sums to 1.")

    def stacked(self, name: str) -> Table:
        """Table `name` of every style, the style as a new last axis (cached)."""
        cache: dict[str, Table] = self.__dict__.setdefault("_stacked", {})
        if name not in cache:
            if name.startswith(("pass:", "enact:")):
                kind, zone = name.split(":")
                method = "pass_probabilities" if kind == "pass" else "enact_probabilities"
                parts = [getattr(b, method)(int(zone)) for b in self.behaviours]
            else:
                parts = [getattr(b, name) for b in self.behaviours]
            table = np.stack(parts, axis=-1)
            table.setflags(write=False)
            cache[name] = table
        return cache[name]

    @classmethod
    def single(cls, behaviour: Behaviour) -> Styles:
        """One style only: the belief of old, exactly (tests and fits compare with it)."""
        return cls(("only",), (behaviour,), (1.0,))


def robust_styles(
    fitted: Behaviour, players: int | None = None, prior: tuple[float, ...] = STYLE_PRIOR
) -> Styles:
    """The mixture the belief reads strangers with, around a fitted behaviour."""
    return Styles(
        STYLE_NAMES,
        (
            with_liberal_lies(fitted),
            default_behaviour(players),
            role_blind(fitted),
            uniform_behaviour(),
        ),
        prior,
    )


def load_styles(players: int, path: Path | None = None) -> Styles:
    """The robust mixture around the fitted behaviour for a player count."""
    if _ACTIVE is not None and path is None and players in _ACTIVE:
        return robust_styles(_ACTIVE[players], players)
    return _load_styles(players, str(path or FITTED_PATH))


@cache
def _load_styles(players: int, path: str, prior: tuple[float, ...] = STYLE_PRIOR) -> Styles:
    return robust_styles(_load(players, path), players, prior)


def reading_model(
    players: int, fit: Path | None = None, prior: tuple[float, ...] | None = None
) -> Behaviour | Styles | None:
    """What an agent's beliefs read the table with: None for the shipped mixture; with a
    `fit` file alone, that fit as the only style; with a style `prior`, the mixture
    around the fit (the shipped one without `fit`) under that prior. The same arguments
    give the same object, so the belief cache keeps serving it."""
    if prior is not None:
        return _load_styles(players, str(fit or FITTED_PATH), prior)
    return load_behaviour(players, fit) if fit else None


def parse_style_prior(text: str) -> tuple[float, ...]:
    """A style prior written as weights in `STYLE_NAMES` order, e.g. "5/1/1/3" or
    "0.5/0.1/0.1/0.3" (normalised); a ValueError with the reason if it is not one."""
    try:
        weights = tuple(float(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"style weights are numbers separated by '/', not {text!r}") from None
    if len(weights) != len(STYLE_NAMES):
        raise ValueError(f"give {len(STYLE_NAMES)} style weights ({'/'.join(STYLE_NAMES)})")
    if not all(math.isfinite(w) and w > 0 for w in weights):
        raise ValueError("every style weight is a positive number")
    total = sum(weights)
    return tuple(w / total for w in weights)


_ACTIVE: dict[int, Behaviour] | None = None


def use_behaviours(by_players: dict[int, Behaviour] | None) -> None:
    """Make `load_behaviour` return these (per player count); None goes back to the file.

    For the fitting script, which plays rounds of games with the model it just fitted.
    """
    global _ACTIVE
    _ACTIVE = dict(by_players) if by_players is not None else None


def load_behaviour(players: int, path: Path | None = None) -> Behaviour:
    """The fitted behaviour for a player count, or the defaults if no fit is stored."""
    if _ACTIVE is not None and path is None and players in _ACTIVE:
        return _ACTIVE[players]
    return _load(players, str(path or FITTED_PATH))


@cache
def _load(players: int, path: str) -> Behaviour:
    file = Path(path)
    if not file.exists():
        # Only a broken install loses the shipped fit; say so rather than play worse quietly.
        log.warning("No behaviour fit at %s: the beliefs use the hand-set defaults.", file)
        return default_behaviour(players)
    data = json.loads(file.read_text())
    by_players = data.get("by_players", {})
    tables = by_players.get(str(players)) or data.get("pooled")
    if tables is None:
        return default_behaviour(players)
    return Behaviour.from_dict(tables)


def save_behaviour(
    by_players: dict[int, Behaviour], pooled: Behaviour, meta: dict[str, Any], path: Path
) -> None:
    """Write fitted behaviours (per player count, plus the pooled fit) as JSON."""
    data = {
        **meta,
        "pooled": pooled.to_dict(),
        "by_players": {str(n): b.to_dict() for n, b in sorted(by_players.items())},
    }
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
