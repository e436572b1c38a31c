"""What an AI player says at the table: its read of the others, from the public record only.

A good player says whom they trust least and why ("Rosa enacted a Fascist policy though
she claims she was passed a Liberal"), and whom they trust most. An AI seat says the same
from the exact belief (`agents.belief`):

every seat, whatever its role, speaks the belief a Liberal in its seat would hold from
the public events alone (its own claims included, as the table heard them), knowing
only that its seat is Liberal. For a Fascist or Hitler that is its cover story: what it
knows of its team never reaches its words. A Liberal speaks the same, not its own
belief: once it held a hand, a peek or a check, its own belief would differ from the
cover a Fascist in its seat speaks, and anyone replaying the public history through
this code would know it Liberal (found by a secrets review). What a Liberal saw reaches
its words through its claims, which the table heard.

So a seat's words are a function of the public history only: two games with the same
public history give the same words, whoever the Fascists are, the speaker included.

`TableTalk` follows one game's events for its AI seats and, after a legislative session,
lets at most `SPEAKERS_PER_SESSION` of them speak, in turn: each says one line if its read
changed. The turn is public (the count of sessions), never who has the strongest read:
that would make a seat's silence depend on the others' secrets. `read` answers `/ask`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine import Party, Policy, Role, Setup
from engine import events as ev

from .belief import Belief, Marginals

# Below this, a seat's suspicion is not worth a remark (the prior of a 10-player table
# is 0.4: a read must stand out from it to be said).
SAY_ABOVE = 0.15  # how far above the table's base rate the least trusted must be
STANDS_OUT = 0.05  # least and most trusted closer than this: nobody stands out yet
# AI seats that may speak after one session (in turn): a table of nine AI players
# saying a line each after every policy drowns the game (22 lines in a 7-player demo).
SPEAKERS_PER_SESSION = 2


def fascist_share(marginals: Marginals, seat: int) -> float:
    """P(seat is on the Fascist team: a Fascist or Hitler)."""
    return marginals[seat][1] + marginals[seat][2]


def reasons_against(events: Iterable[ev.Event], seat: int, names: Sequence[str]) -> list[str]:
    """Public facts that count against `seat`, most telling first (phrased after the
    seat's name: "enacted a Fascist policy ...")."""
    found: list[tuple[int, str]] = []  # (weight, phrase)
    passed: ev.PolicyHandPassed | None = None  # the last session's government
    enacted: Policy | None = None  # and what it enacted
    # What the session's President says they passed, and the Chancellor received.
    said: dict[str, tuple[Policy, ...]] = {}
    for event in events:
        match event:
            case ev.PolicyHandPassed():
                passed, enacted = event, None
                said.clear()
            case ev.ChancellorClaimed(chancellor=chancellor, received=hand):
                said["chancellor"] = hand
                if chancellor == seat and Policy.LIBERAL in hand and enacted is Policy.FASCIST:
                    found.append((3, "enacted a Fascist policy though claiming a Liberal in hand"))
            case ev.PresidentClaimed(passed=hand):
                said["president"] = hand
        if (
            isinstance(event, ev.PresidentClaimed | ev.ChancellorClaimed)
            and passed is not None
            and seat in (passed.president, passed.chancellor)
            and len(said) == 2
            and sorted(said["president"]) != sorted(said["chancellor"])
        ):
            other = passed.chancellor if seat == passed.president else passed.president
            found.append((3, f"tells a story about the hand that {names[other]} denies"))
        match event:
            case ev.PolicyEnacted(policy=Policy.FASCIST, chaos=False) if passed is not None:
                enacted = Policy.FASCIST
                if passed.chancellor == seat:
                    found.append((2, "enacted a Fascist policy as Chancellor"))
                elif passed.president == seat:
                    found.append((1, "was President when a Fascist policy passed"))
            case ev.PolicyEnacted(policy=Policy.LIBERAL, chaos=False):
                enacted = Policy.LIBERAL
            case ev.InvestigationClaimed(president=president, target=target, party=party):
                if target == seat and party is Party.FASCIST:
                    found.append((3, f"was called a Fascist by {names[president]}"))
    found.sort(key=lambda item: -item[0])
    return [phrase for _, phrase in found]


def reasons_for(events: Iterable[ev.Event], seat: int, names: Sequence[str]) -> list[str]:
    """Public facts that speak for `seat`, most telling first."""
    found: list[tuple[int, str]] = []
    passed: ev.PolicyHandPassed | None = None
    for event in events:
        match event:
            case ev.PolicyHandPassed():
                passed = event
            case ev.PolicyEnacted(policy=Policy.LIBERAL, chaos=False) if passed is not None:
                if passed.chancellor == seat:
                    found.append((2, "enacted a Liberal policy as Chancellor"))
                elif passed.president == seat:
                    found.append((1, "passed a Liberal policy as President"))
            case ev.InvestigationClaimed(president=president, target=target, party=party):
                if target == seat and party is Party.LIBERAL:
                    found.append((2, f"was called a Liberal by {names[president]}"))
            case ev.ChancellorNotHitler(chancellor=chancellor) if chancellor == seat:
                found.append((1, "was elected Chancellor and is not Hitler"))
    found.sort(key=lambda item: -item[0])
    return [phrase for _, phrase in found]


@dataclass(slots=True)
class Speaker:
    """One AI seat's belief for speaking (see the module docstring)."""

    seat: int
    belief: Belief  # a Liberal's in this seat, from the public events only
    said: int | None = None  # the seat it last named as least trusted
    events: list[ev.Event] = field(default_factory=list)  # what the table heard

    def hears(self, event: ev.Event) -> None:
        """Take one event: the public ones, and its own role dealt as a Liberal's."""
        if event.visible_to(None):
            self.events.append(event)
            self.belief.update(event)
        elif isinstance(event, ev.RoleDealt) and event.seat == self.seat:
            # A Liberal in this seat knows one thing beyond the table: that it is one.
            self.belief.update(ev.RoleDealt(self.seat, Role.LIBERAL, ()))


def read(speaker: Speaker, names: Sequence[str]) -> str:
    """The speaker's read of the table, in one or two sentences (for `/ask`)."""
    marginals = speaker.belief.marginals()
    others = [s for s in range(len(names)) if s != speaker.seat]
    if not all(math.isfinite(fascist_share(marginals, s)) for s in others):
        return "I cannot make sense of this table yet."
    least = max(others, key=lambda s: fascist_share(marginals, s))
    most = min(others, key=lambda s: fascist_share(marginals, s))
    against = reasons_against(speaker.events, least, names)
    why = f": {names[least]} {against[0]}" if against else ""
    if fascist_share(marginals, least) - fascist_share(marginals, most) < STANDS_OUT:
        return "Too early to say: nobody stands out yet."
    # Words, not numbers: a table statement, not the exact posterior (an oracle).
    sentence = f"I trust {names[least]} least{why}."
    support = reasons_for(speaker.events, most, names)
    trust = f" I trust {names[most]} most"
    trust += f": {names[most]} {support[0]}." if support else "."
    return sentence + trust


def remark(speaker: Speaker, names: Sequence[str], base_rate: float) -> str | None:
    """What the speaker says after a session: its least trusted seat when that changed
    and stands out from the table's base rate; None to stay quiet."""
    marginals = speaker.belief.marginals()
    others = [s for s in range(len(names)) if s != speaker.seat]
    shares = {s: fascist_share(marginals, s) for s in others}
    if not all(math.isfinite(p) for p in shares.values()):
        return None
    least = max(others, key=lambda s: shares[s])
    if least == speaker.said or shares[least] < base_rate + SAY_ABOVE:
        return None
    speaker.said = least
    against = reasons_against(speaker.events, least, names)
    why = f" {names[least]} {against[0]}." if against else ""
    return f"I don't trust {names[least]}.{why}"


class TableTalk:
    """The AI seats' words in one game (see the module docstring)."""

    def __init__(self, setup: Setup, ai_seats: Iterable[int]) -> None:
        self.setup = setup
        team = setup.fascists + 1  # the Fascists and Hitler
        self.base_rate = team / setup.players
        # Each the belief of a Liberal in its seat who saw nothing private (its own
        # moves are its own; it is Liberal; see `Speaker.hears`), whatever its role.
        self.speakers = {seat: Speaker(seat, Belief(setup, seat)) for seat in ai_seats}
        self.sessions = 0  # policies enacted so far (public): whose turn it is to speak

    def hear(self, events: Iterable[ev.Event]) -> None:
        """Feed the game's events, in order, as they happen."""
        for event in events:
            if isinstance(event, ev.PolicyEnacted):
                self.sessions += 1
            for speaker in self.speakers.values():
                speaker.hears(event)

    def turn(self) -> list[int]:
        """The AI seats whose turn it is to speak after the latest session."""
        seats = sorted(self.speakers)
        if len(seats) <= SPEAKERS_PER_SESSION:
            return seats
        start = (max(self.sessions, 1) - 1) * SPEAKERS_PER_SESSION
        return [seats[(start + i) % len(seats)] for i in range(SPEAKERS_PER_SESSION)]

    def remarks(self, names: Sequence[str]) -> list[tuple[int, str]]:
        """(seat, words) for each AI seat whose turn it is and who has something to say."""
        out = []
        for seat in self.turn():
            words = remark(self.speakers[seat], names, self.base_rate)
            if words is not None:
                out.append((seat, words))
        return out

    def ask(self, seat: int, names: Sequence[str]) -> str | None:
        """The AI seat's answer to `/ask` (None: not an AI seat here)."""
        speaker = self.speakers.get(seat)
        return None if speaker is None else read(speaker, names)
