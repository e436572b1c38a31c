"""The game told as a story for a terminal: one short block per round, and "you" for the
local player.

`bot.narrate` words each event as a full sentence for any audience (Discord, logs,
tests). A terminal reads better grouped: a header line when a presidential candidate
comes up ("Round 4 · Juno for President"), then the round's events as short indented
lines, names without seat numbers (when they are unique), the local player's seat
addressed in the second person ("Juno nominates you", "You claim ...").

Like `narrate`, `story_lines` speaks only of what each event's audience may know; the
caller decides who hears it (the table hears public events only).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import Policy, Power
from engine import events as ev
from engine.variants import CHAOS_AT, FASCIST_TO_WIN, LIBERAL_TO_WIN

from ..narrate import tiles
from .text import ENDINGS

INDENT = "  "
_POLICY = {Policy.LIBERAL: "Liberal", Policy.FASCIST: "Fascist"}
_POWER = {  # (third person, second person)
    Power.INVESTIGATE: (
        "must investigate a player's loyalty",
        "must investigate a player's loyalty",
    ),
    Power.SPECIAL_ELECTION: ("must call a special election", "must call a special election"),
    Power.POLICY_PEEK: ("peeks at the top three policies", "peek at the top three policies"),
    Power.EXECUTION: ("must execute a player", "must execute a player"),
}


def short_names(labels: Sequence[str], names: Sequence[str]) -> list[str]:
    """Each seat's bare name where every name is unique, else its label (with the seat)."""
    return list(names) if len(set(names)) == len(names) else list(labels)


@dataclass(frozen=True, slots=True)
class Teller:
    """Words events for one listener: `you` is the listener's seat (None: a spectator)."""

    names: Sequence[str]
    you: int | None = None

    def who(self, seat: int) -> str:
        """A seat as the object of a sentence: its name, or "you"."""
        return "you" if seat == self.you else self.names[seat]

    def does(self, seat: int, third: str, second: str) -> str:
        """Subject and verb: "Juno nominates" or "You nominate"."""
        if seat == self.you:
            return f"You {second}"
        return f"{self.names[seat]} {third}"

    def many(self, seats: Sequence[int]) -> str:
        """A list of seats ("Ada, you, Gus"); "nobody" for none."""
        return ", ".join(self.who(s) for s in seats) or "nobody"

    def line(self, event: ev.Event) -> str | None:
        """The event in a few words (None for nothing to say), without indentation."""
        who, does = self.who, self.does
        match event:
            case ev.GameStarted(players=players, variant=variant, fascist_policies=f):
                extra = f", {f} Fascist policy already on the board" if f else ""
                return f"A game of Secret Hitler begins: {players} players, {variant} rules{extra}."
            case ev.ChancellorNominated(president=p, chancellor=c):
                return f"{does(p, 'nominates', 'nominate')} {who(c)} for Chancellor."
            case ev.ElectionResult(votes=votes, elected=elected):
                return self._result(votes, elected)
            case ev.ElectionTrackerAdvanced(election_tracker=t):
                return f"Election tracker: {t}/{CHAOS_AT}."
            case ev.ChancellorNotHitler(chancellor=c):
                if c == self.you:
                    return "You are confirmed not to be Hitler."
                return f"{who(c)} is confirmed not to be Hitler."
            case ev.PolicyHandPassed(president=p, chancellor=c):
                return f"{does(p, 'passes', 'pass')} two policies to {who(c)}."
            case ev.VetoProposed(chancellor=c):
                return f"{does(c, 'proposes', 'propose')} a veto."
            case ev.VetoReplied(president=p, agreed=agreed):
                if agreed:
                    return f"{does(p, 'agrees', 'agree')}: both policies are discarded."
                return f"{does(p, 'refuses', 'refuse')} the veto."
            case ev.PolicyEnacted(
                policy=p, chaos=chaos, liberal_policies=lib, fascist_policies=fas
            ):
                how = "Chaos: the top policy is enacted" if chaos else "Enacted"
                return (
                    f"{how}: {_POLICY[p]}. Board: Liberal {lib}/{LIBERAL_TO_WIN}, "
                    f"Fascist {fas}/{FASCIST_TO_WIN}."
                )
            case ev.TermLimitsCleared():
                return "Term limits are forgotten."
            case ev.DeckReshuffled(draw_pile=size):
                return f"The discards are shuffled back in: {size} policies to draw."
            case ev.PowerGranted(president=p, power=power):
                third, second = _POWER[power]
                return f"{does(p, third, second)}."
            case ev.PowerSkipped(president=p):
                return f"{does(p, 'has', 'have')} nobody left to use the power on; it lapses."
            case ev.PlayerInvestigated(president=p, target=t):
                return f"{does(p, 'investigates', 'investigate')} {who(t)}."
            case ev.SpecialElectionCalled(president=p, target=t):
                return (
                    f"{does(p, 'calls', 'call')} a special election: "
                    f"{who(t)} will be the next candidate."
                )
            case ev.PlayerExecuted(president=p, target=t):
                return f"{does(p, 'executes', 'execute')} {who(t)}."
            case ev.PresidentClaimed(president=p, drew=drew, passed=passed):
                return f"{does(p, 'claims', 'claim')}: drew {tiles(drew)}, passed {tiles(passed)}."
            case ev.ChancellorClaimed(chancellor=c, received=got):
                return f"{does(c, 'claims', 'claim')}: received {tiles(got)}."
            case ev.PeekClaimed(president=p, tiles=top):
                return f"{does(p, 'claims', 'claim')}: the top three are {tiles(top)}."
            case ev.InvestigationClaimed(president=p, target=t, party=party):
                be = "are" if t == self.you else "is"
                return f"{does(p, 'claims', 'claim')}: {who(t)} {be} a {party.value.capitalize()}."
            case ev.GameEnded(reason=reason):
                return f"{ENDINGS[reason]}."
            case ev.RoleDealt(seat=s, role=role, known=known):
                mates = ", ".join(f"{who(o)} ({r.value})" for o, r in known)
                whose = "Your" if s == self.you else f"{self.names[s]}'s"
                knows = "You know" if s == self.you else "They know"
                return f"{whose} role: {role.value}." + (f" {knows}: {mates}." if mates else "")
            case ev.PoliciesDrawn(seat=s, tiles=drawn):
                return f"{does(s, 'draws', 'draw')} {tiles(drawn)}."
            case ev.PolicyDiscarded(seat=s, policy=p):
                return f"{does(s, 'discards', 'discard')} {_POLICY[p]}."
            case ev.PoliciesReceived(seat=s, tiles=got):
                return f"{does(s, 'receives', 'receive')} {tiles(got)}."
            case ev.PolicyPeeked(seat=s, tiles=top):
                return f"{does(s, 'sees', 'see')} the top of the pile: {tiles(top)}."
            case ev.InvestigationResult(seat=s, target=t, party=party):
                be = "are" if t == self.you else "is"
                return f"{does(s, 'sees', 'see')} that {who(t)} {be} a {party.value.capitalize()}."
        return None

    def _result(self, votes: Sequence[bool | None], elected: bool) -> str:
        ja = [s for s, b in enumerate(votes) if b is True]
        nein = [s for s, b in enumerate(votes) if b is False]
        outcome = "Elected" if elected else "Rejected"
        if not nein or not ja:
            return f"{outcome}, unanimously ({len(ja) or len(nein)} {'Ja' if ja else 'Nein'})."
        # The smaller side says the most in the fewest names (the others voted the other way).
        side, seats = ("Nein", nein) if len(nein) <= len(ja) else ("Ja", ja)
        return f"{outcome} ({len(ja)} Ja, {len(nein)} Nein). {side}: {self.many(seats)}."

    def header(self, number: int, president: int) -> str:
        """The first line of a round's block."""
        if president == self.you:
            return f"Round {number} · you are the presidential candidate"
        return f"Round {number} · {self.names[president]} for President"


_CLAIMS = (ev.PresidentClaimed, ev.ChancellorClaimed, ev.PeekClaimed, ev.InvestigationClaimed)
# A claim speaks of the last government that held policies or used a power.
_GOVERNMENT = (ev.PolicyHandPassed, ev.PlayerInvestigated, ev.PowerGranted)


def story_lines(
    events: Iterable[ev.Event],
    teller: Teller,
    *,
    rounds_before: int = 0,
    government: int | None = None,
) -> list[str]:
    """`events` as the terminal tells them: a blank line and a header for each new round
    (counted from `rounds_before`), the round's events indented beneath it; the start and
    the end of the game unindented. An election's result and the tracker it moves share
    one line. A claim made once a later round has begun names the round it speaks of
    (`government`: the round of the last government before `events`, if any)."""
    out: list[str] = []
    rounds = rounds_before
    previous: ev.Event | None = None
    for event in events:
        previous, event_before = event, previous
        if isinstance(event, ev.PresidentialCandidate):
            rounds += 1
            out += ["", teller.header(rounds, event.president)]
            continue
        if isinstance(event, _GOVERNMENT):
            government = rounds
        line = teller.line(event)
        if line is None:
            continue
        if isinstance(event, ev.ElectionTrackerAdvanced) and isinstance(
            event_before, ev.ElectionResult
        ):
            out[-1] += f" {line}"
            continue
        if isinstance(event, _CLAIMS) and government is not None and government != rounds:
            subject, said = line.split(": ", 1)
            line = f"{subject} about round {government}: {said}"
        if isinstance(event, ev.GameStarted):
            out.append(line)
        elif isinstance(event, ev.GameEnded):
            out += ["", line]
        else:
            out.append(INDENT + line)
    return out


def last_government(events: Iterable[ev.Event], *, rounds_before: int = 0) -> int | None:
    """The round of the last government in `events` that held policies or used a power
    (rounds counted from `rounds_before`); None if there is none."""
    rounds, government = rounds_before, None
    for event in events:
        rounds += isinstance(event, ev.PresidentialCandidate)
        if isinstance(event, _GOVERNMENT):
            government = rounds
    return government


def rounds_in(events: Iterable[ev.Event]) -> int:
    """How many rounds (presidential candidacies) `events` hold."""
    return sum(isinstance(e, ev.PresidentialCandidate) for e in events)
