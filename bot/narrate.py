"""Text narration of game events, in the game's own words.

`narrate` speaks only of what an event's audience may know; the caller decides who
hears it (the table hears public events only, until the game is over).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Party, Policy, Power, WinReason
from engine import events as ev

_POLICY = {Policy.LIBERAL: "Liberal", Policy.FASCIST: "Fascist"}
_POWER = {
    Power.INVESTIGATE: "must investigate a player's loyalty",
    Power.SPECIAL_ELECTION: "must call a special election",
    Power.POLICY_PEEK: "peeks at the top three policies",
    Power.EXECUTION: "must execute a player",
}
_ENDING = {
    WinReason.FIVE_LIBERAL: "five Liberal policies are enacted",
    WinReason.SIX_FASCIST: "six Fascist policies are enacted",
    WinReason.HITLER_ELECTED: "Hitler was elected Chancellor",
    WinReason.HITLER_EXECUTED: "Hitler was executed",
}


def tiles(policies: Sequence[Policy]) -> str:
    """Tiles as letters, e.g. 'L F F'."""
    return " ".join(p.value for p in policies)


def narrate(event: ev.Event, names: Sequence[str]) -> str | None:
    """One line describing `event` using the players' `names`; None if nothing to say."""
    n = names.__getitem__
    match event:
        case ev.GameStarted(players=players, variant=variant, fascist_policies=f):
            extra = f", {f} Fascist policy already on the board" if f else ""
            return f"A game of Secret Hitler begins: {players} players, {variant} rules{extra}."
        case ev.PresidentialCandidate(president=p):
            return f"{n(p)} is the presidential candidate."
        case ev.ChancellorNominated(president=p, chancellor=c):
            return f"{n(p)} nominates {n(c)} for Chancellor. Vote Ja or Nein."
        case ev.VoteCast():
            return None  # the table sees who has voted from the vote prompt, not line by line
        case ev.ElectionResult(votes=votes, elected=elected):
            ja = [n(s) for s, b in enumerate(votes) if b is True]
            nein = [n(s) for s, b in enumerate(votes) if b is False]
            outcome = "The government is elected" if elected else "The election fails"
            ja_list, nein_list = ", ".join(ja) or "nobody", ", ".join(nein) or "nobody"
            return f"{outcome}. Ja: {ja_list}. Nein: {nein_list}."
        case ev.ElectionTrackerAdvanced(election_tracker=t):
            return f"The election tracker moves to {t}."
        case ev.ChancellorNotHitler(chancellor=c):
            return f"{n(c)} is confirmed not to be Hitler."
        case ev.PolicyHandPassed(president=p, chancellor=c):
            return f"{n(p)} discards a policy and passes two to {n(c)}."
        case ev.VetoProposed(chancellor=c):
            return f"Chancellor {n(c)} proposes to veto this agenda."
        case ev.VetoReplied(president=p, agreed=agreed):
            if agreed:
                return f"President {n(p)} agrees: both policies are discarded."
            return f"President {n(p)} refuses the veto; the Chancellor must enact a policy."
        case ev.PolicyEnacted(policy=p, chaos=chaos, liberal_policies=lib, fascist_policies=fas):
            how = "The country is thrown into chaos: the top policy" if chaos else "A policy"
            return f"{how} is enacted: {_POLICY[p]}. Board: {lib} Liberal, {fas} Fascist."
        case ev.TermLimitsCleared():
            return "All term limits are forgotten."
        case ev.DeckReshuffled(draw_pile=size):
            return f"The discards are shuffled back in: {size} policies in the draw pile."
        case ev.PowerGranted(president=p, power=power):
            return f"President {n(p)} {_POWER[power]}."
        case ev.PowerSkipped(president=p):
            return f"President {n(p)} has nobody left to use the power on; it lapses."
        case ev.PlayerInvestigated(president=p, target=t):
            return f"{n(p)} investigates the loyalty of {n(t)}."
        case ev.SpecialElectionCalled(president=p, target=t):
            return f"{n(p)} calls a special election: {n(t)} is the next presidential candidate."
        case ev.PlayerExecuted(president=p, target=t):
            return f"{n(p)} executes {n(t)}."
        case ev.PresidentClaimed(president=p, drew=drew, passed=passed):
            return (
                f"President {n(p)} claims to have drawn {tiles(drew)} and passed {tiles(passed)}."
            )
        case ev.ChancellorClaimed(chancellor=c, received=got):
            return f"Chancellor {n(c)} claims to have received {tiles(got)}."
        case ev.PeekClaimed(president=p, tiles=top):
            return f"President {n(p)} claims the top three policies are {tiles(top)}."
        case ev.InvestigationClaimed(president=p, target=t, party=party):
            return f"President {n(p)} claims {n(t)} is a {party.value.capitalize()}."
        case ev.GameEnded(winner=winner, reason=reason):
            side = "Liberals" if winner is Party.LIBERAL else "Fascists"
            return f"The {side} win: {_ENDING[reason]}."
        case ev.RoleDealt(seat=s, role=role, known=known):
            mates = ", ".join(f"{n(o)} ({r.value})" for o, r in known)
            return f"{n(s)}'s role: {role.value}." + (f" They know: {mates}." if mates else "")
        case ev.PoliciesDrawn(seat=s, tiles=drawn):
            return f"{n(s)} draws {tiles(drawn)}."
        case ev.PolicyDiscarded(seat=s, policy=p):
            return f"{n(s)} discards {_POLICY[p]}."
        case ev.PoliciesReceived(seat=s, tiles=got):
            return f"{n(s)} receives {tiles(got)}."
        case ev.PolicyPeeked(seat=s, tiles=top):
            return f"{n(s)} sees the top of the pile: {tiles(top)}."
        case ev.InvestigationResult(seat=s, target=t, party=party):
            return f"{n(s)} sees that {n(t)} is a {party.value.capitalize()}."
    return None
