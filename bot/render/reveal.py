"""The end-of-game reveal: every role, every hidden hand, the lies, and how the AI read it.

Shown only once the game is over: it prints everything the table could not see while
the game ran (draws, discards, the chancellor's hand, peeks, investigation results,
the roles of executed players), checks every claim against the truth, and summarises
each AI player's suspicion track.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine import Party, Policy, Role
from engine import events as ev

from ..narrate import narrate, tiles
from ..suspicion import SuspicionTrack

_TEAMS = ((Role.HITLER, "Hitler"), (Role.FASCIST, "Fascists"), (Role.LIBERAL, "Liberals"))


@dataclass(slots=True)
class _Government:
    """One legislative session as it really happened."""

    number: int
    president: int
    chancellor: int | None
    drew: tuple[Policy, ...]
    president_discard: Policy | None = None
    received: tuple[Policy, ...] = ()
    chancellor_discard: Policy | None = None
    veto_proposed: bool = False
    veto_agreed: bool | None = None
    enacted: Policy | None = None
    claims: list[str] = field(default_factory=list)

    @property
    def passed(self) -> tuple[Policy, ...]:
        """What the president really passed on (the draw minus the discard)."""
        rest = list(self.drew)
        if self.president_discard is not None:
            rest.remove(self.president_discard)
        return tuple(rest)

    def line(self, names: Sequence[str]) -> str:
        """'Session 3 — President Ada drew L F F, discarded L; Chancellor Boris ...'."""
        text = f"Session {self.number} — President {names[self.president]} drew {tiles(self.drew)}"
        if self.president_discard is not None:
            text += f", discarded {self.president_discard.value}"
        if self.chancellor is None or not self.received:
            return text + "."
        text += f"; Chancellor {names[self.chancellor]} received {tiles(self.received)}"
        if self.veto_proposed:
            text += ", proposed a veto"
            if self.veto_agreed is True:
                return text + f"; the President agreed: both discarded ({tiles(self.received)})."
            if self.veto_agreed is False:
                text += f"; the President refused, so {names[self.chancellor]}"
        done = []
        if self.chancellor_discard is not None:
            done.append(f"discarded {self.chancellor_discard.value}")
        if self.enacted is not None:
            done.append(f"enacted {self.enacted.value}")
        if done:
            text += (" " if self.veto_agreed is False else ", ") + ", ".join(done)
        return text + "."


@dataclass(slots=True)
class _Secret:
    """A peek or an investigation: who saw what."""

    president: int
    seen: tuple[Policy, ...] = ()  # a peek
    target: int | None = None  # an investigation
    party: Party | None = None
    claims: list[str] = field(default_factory=list)

    def line(self, names: Sequence[str]) -> str:
        """'Policy peek — President Ada saw F F L (top first).' or the investigation."""
        who = f"President {names[self.president]}"
        if self.target is None:
            return f"Policy peek — {who} saw {tiles(self.seen)} (top first)."
        party = self.party.value.capitalize() if self.party else "?"
        return f"Investigation — {who} saw that {names[self.target]} is a {party}."


@dataclass(slots=True)
class _Note:
    """A public moment worth placing in the timeline (chaos, an execution)."""

    text: str
    claims: list[str] = field(default_factory=list)

    def line(self, names: Sequence[str]) -> str:
        """The note itself."""
        return self.text


_Item = _Government | _Secret | _Note


@dataclass(slots=True)
class _Timeline:
    """The hidden history rebuilt from the events, with every claim checked."""

    roles: Sequence[Role]
    names: Sequence[str]
    items: list[_Item] = field(default_factory=list)
    tally: Counter[int] = field(default_factory=Counter)  # claims per seat
    lies: Counter[int] = field(default_factory=Counter)  # lies per seat
    chancellor: int | None = None  # of the last elected government
    ending: str | None = None

    def feed(self, event: ev.Event) -> None:
        """Take one event (any audience) in game order."""
        match event:
            case ev.ElectionResult(chancellor=c, elected=True):
                self.chancellor = c
            case ev.PoliciesDrawn(seat=p, tiles=drawn):
                number = 1 + sum(isinstance(i, _Government) for i in self.items)
                self.items.append(_Government(number, p, self.chancellor, drawn))
            case ev.PolicyDiscarded(seat=s, policy=p):
                session = self._last_session()
                if session is not None and s == session.president:
                    session.president_discard = p
                elif session is not None:  # the chancellor's discard, as they enact
                    session.chancellor_discard = p
            case ev.PoliciesReceived(tiles=got):
                if (session := self._last_session()) is not None:
                    session.received = got
            case ev.VetoProposed():
                if (session := self._last_session()) is not None:
                    session.veto_proposed = True
            case ev.VetoReplied(agreed=agreed):
                if (session := self._last_session()) is not None:
                    session.veto_agreed = agreed
            case ev.PolicyEnacted(policy=p, chaos=False):
                if (session := self._last_session()) is not None:
                    session.enacted = p
            case ev.PolicyEnacted(policy=p, chaos=True):
                self.items.append(_Note(f"Chaos — the top policy was enacted: {p.value}."))
            case ev.PolicyPeeked(seat=s, tiles=top):
                self.items.append(_Secret(s, seen=top))
            case ev.InvestigationResult(seat=s, target=t, party=party):
                self.items.append(_Secret(s, target=t, party=party))
            case ev.PlayerExecuted(president=p, target=t):
                role = self.roles[t].value.capitalize()
                self.items.append(
                    _Note(f"Execution — {self.names[p]} executed {self.names[t]} ({role}).")
                )
            case ev.GameEnded():
                self.ending = narrate(event, self.names)
            case (
                ev.PresidentClaimed()
                | ev.ChancellorClaimed()
                | ev.PeekClaimed()
                | ev.InvestigationClaimed()
            ):
                self._check_claim(event)

    def _last_session(
        self, match: Callable[[_Government], bool] | None = None
    ) -> _Government | None:
        for item in reversed(self.items):
            if isinstance(item, _Government) and (match is None or match(item)):
                return item
        return None

    def _last_secret(self, president: int, target: int | None) -> _Secret | None:
        for item in reversed(self.items):
            if isinstance(item, _Secret) and item.president == president and item.target == target:
                return item
        return None

    def _check_claim(self, event: ev.Event) -> None:
        """Attach the claim to what it is about, marked true or LIE."""
        n = self.names
        item: _Item | None = None
        truth: str | None = None
        match event:
            case ev.PresidentClaimed(president=p, drew=drew, passed=passed):
                claimer = p
                said = f"{n[p]} claimed to draw {tiles(drew)} and pass {tiles(passed)}"
                item = self._last_session(lambda s: s.president == p)
                if item is not None and _same(drew, item.drew) and _same(passed, item.passed):
                    truth = ""
                elif item is not None:
                    truth = f"drew {tiles(item.drew)}, passed {tiles(item.passed)}"
            case ev.ChancellorClaimed(chancellor=c, received=got):
                claimer = c
                said = f"{n[c]} claimed to receive {tiles(got)}"
                item = self._last_session(lambda s: s.chancellor == c and bool(s.received))
                if item is not None:
                    truth = "" if _same(got, item.received) else f"received {tiles(item.received)}"
            case ev.PeekClaimed(president=p, tiles=top):
                claimer = p
                said = f"{n[p]} claimed the peek showed {tiles(top)}"
                item = self._last_secret(p, None)
                if item is not None:
                    truth = "" if _same(top, item.seen) else f"saw {tiles(item.seen)}"
            case ev.InvestigationClaimed(president=p, target=t, party=party):
                claimer = p
                said = f"{n[p]} claimed {n[t]} is a {party.value.capitalize()}"
                item = self._last_secret(p, t)
                if item is not None and item.party is not None:
                    truth = "" if party is item.party else f"saw {item.party.value.capitalize()}"
            case _:
                return
        self.tally[claimer] += 1
        if truth is None:
            verdict = "cannot be checked"
        elif truth:
            self.lies[claimer] += 1
            verdict = f"LIE (really {truth})"
        else:
            verdict = "true"
        line = f"{said} — {verdict}."
        if item is None:
            self.items.append(_Note(f"Claim: {line}"))
        else:
            item.claims.append(line)


def _same(a: Sequence[Policy], b: Sequence[Policy]) -> bool:
    """Claims are multisets: the order tiles are named in does not matter."""
    return Counter(a) == Counter(b)


def reveal_text(
    events: Sequence[ev.Event],
    roles: Sequence[Role],
    names: Sequence[str],
    tracks: Sequence[SuspicionTrack] = (),
) -> str:
    """The whole reveal of a finished game, from all of its events (private ones too)."""
    if len(names) != len(roles):
        raise ValueError(f"{len(roles)} roles but {len(names)} names")
    timeline = _Timeline(roles, names)
    for event in events:
        timeline.feed(event)
    out = ["The reveal"]
    if timeline.ending:
        out.append(timeline.ending)
    out.append("Roles:")
    for role, label in _TEAMS:
        seats = [names[s] for s, r in enumerate(roles) if r is role]
        if seats:
            out.append(f"  {label}: {', '.join(seats)}")
    out.append("What really happened:")
    for item in timeline.items:
        out.append(f"  {item.line(names)}")
        out.extend(f"    {claim}" for claim in item.claims)
    if not timeline.items:
        out.append("  No legislative session took place.")
    out.append(_lies_line(timeline, names))
    if tracks:
        out.append("How the AI read the table (P(Fascist or Hitler), first → last snapshot):")
        for track in tracks:
            out.extend(f"  {line}" for line in suspicion_summary(track, roles, names))
    return "\n".join(out)


def _lies_line(timeline: _Timeline, names: Sequence[str]) -> str:
    total, lies = sum(timeline.tally.values()), sum(timeline.lies.values())
    if not total:
        return "Claims: none were made."
    liars = ", ".join(
        f"{names[s]} {timeline.lies[s]} of {timeline.tally[s]}"
        for s in sorted(timeline.tally)
        if timeline.lies[s]
    )
    return f"Lies: {lies} of {total} claims" + (f" ({liars})." if liars else ".")


def suspicion_summary(
    track: SuspicionTrack, roles: Sequence[Role], names: Sequence[str]
) -> list[str]:
    """How one observer's suspicion of each other seat moved, and whether it found Hitler."""
    who = track.observer if track.seat is None else f"{track.observer} (seat {track.seat})"
    if not track.snapshots:
        return [f"{who}: no snapshots recorded."]
    first, last = track.snapshots[0].marginals, track.snapshots[-1].marginals
    for snapshot in track.snapshots:
        if len(snapshot.marginals) != len(roles):
            raise ValueError(
                f"{who}'s snapshot {snapshot.label!r} has {len(snapshot.marginals)} seats, "
                f"not {len(roles)}"
            )
    others = [s for s in range(len(roles)) if s != track.seat]
    moves = ", ".join(f"{names[s]} {_move(first[s], last[s])}" for s in others)
    hitler = roles.index(Role.HITLER)
    guess = max(others, key=lambda s: (last[s][2], -s))
    if track.seat == hitler:
        verdict = ""  # Hitler knows who Hitler is: a guess among the others says nothing
    elif guess == hitler:
        verdict = (
            f"Most suspected as Hitler at the end: {names[guess]} ({_pct(last[guess][2])}) — right."
        )
    else:
        verdict = (
            f"Most suspected as Hitler at the end: {names[guess]} ({_pct(last[guess][2])}) "
            f"— wrong, Hitler was {names[hitler]} ({_pct(last[hitler][2])})."
        )
    team = [s for s in others if roles[s] is not Role.LIBERAL]
    suspects = sorted(others, key=lambda s: (-_fascist(last[s]), s))[: len(team)]
    found = sum(roles[s] is not Role.LIBERAL for s in suspects)
    read = (
        f"Top {len(team)} Fascist suspects: {', '.join(names[s] for s in suspects)} "
        f"— {found} of {len(team)} right."
    )
    count = len(track.snapshots)
    verdicts = f"{verdict} {read}" if verdict else read
    return [f"{who}, {count} snapshot{'s' if count != 1 else ''}: {moves}.", f"  {verdicts}"]


def _move(first: tuple[float, float, float], last: tuple[float, float, float]) -> str:
    before, after = _pct(_fascist(first)), _pct(_fascist(last))
    return after if before == after else f"{before}→{after}"


def _fascist(marginal: tuple[float, float, float]) -> float:
    return marginal[1] + marginal[2]


def _pct(p: float) -> str:
    return f"{round(100 * p)}%" if math.isfinite(p) else "?"
