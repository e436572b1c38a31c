"""How prompts read: the label of each option and the question a prompt asks.

A `bot.ports.Prompt` carries ready-made words, so that front-ends need no rules to show
it; the session builds them here from the seat's own view (a question may name the
seat's hand: a prompt is private to its seat).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import (
    Action,
    CallSpecialElection,
    ChancellorClaim,
    Discard,
    Enact,
    Execute,
    Investigate,
    InvestigationClaim,
    Nominate,
    PeekClaim,
    Phase,
    PlayerView,
    Policy,
    PresidentClaim,
    ProposeVeto,
    VetoReply,
    Vote,
)

from .narrate import tiles

_WORD = {Policy.LIBERAL: "Liberal", Policy.FASCIST: "Fascist"}
CLAIM_QUESTION = "You may tell the table what you saw (optional, and you may lie)."
SAY_NOTHING = "Say nothing"  # a claim prompt's last option
WAITING_FOR = {  # whom the table waits for, to do what
    Phase.NOMINATE: "nominate a chancellor",
    Phase.PRESIDENT_DISCARD: "discard a policy",
    Phase.CHANCELLOR_ENACT: "enact a policy",
    Phase.VETO_REPLY: "answer the veto",
    Phase.INVESTIGATE: "investigate a player",
    Phase.SPECIAL_ELECTION: "call a special election",
    Phase.EXECUTE: "execute a player",
}


def option_label(action: Action, labels: Sequence[str]) -> str:
    """How an action or claim reads on a button or a numbered list."""
    match action:
        case Nominate(chancellor=c):
            return labels[c]
        case Vote(ja=ja):
            return "Ja" if ja else "Nein"
        case Discard(policy=p):
            return f"Discard {_WORD[p]}"
        case Enact(policy=p):
            return f"Enact {_WORD[p]}"
        case ProposeVeto():
            return "Propose a veto"
        case VetoReply(agree=agree):
            return "Agree to the veto" if agree else "Refuse the veto"
        case Investigate(target=t) | CallSpecialElection(target=t) | Execute(target=t):
            return labels[t]
        case PresidentClaim(drew=drew, passed=passed):
            return f"I drew {tiles(drew)} and passed {tiles(passed)}"
        case ChancellorClaim(received=received):
            return f"I received {tiles(received)}"
        case PeekClaim(tiles=top):
            return f"The top three are {tiles(top)}"
        case InvestigationClaim(target=t, party=party):
            return f"{labels[t]} is a {party.value.capitalize()}"
    return str(action)


def action_question(view: PlayerView, labels: Sequence[str]) -> str:
    """The question a prompt asks, from the seat's own view (it may name the seat's hand)."""
    chancellor = labels[view.chancellor] if view.chancellor is not None else "?"
    match view.phase:
        case Phase.NOMINATE:
            return "You are the presidential candidate: nominate a chancellor."
        case Phase.VOTE:
            return (
                f"Vote on President {labels[view.president]} with Chancellor {chancellor}. "
                "You can change your vote until the last vote is in."
            )
        case Phase.PRESIDENT_DISCARD:
            return (
                f"You drew {tiles(view.hand)}. Discard one policy; "
                f"the other two go to Chancellor {chancellor}."
            )
        case Phase.CHANCELLOR_ENACT:
            veto = any(isinstance(a, ProposeVeto) for a in view.legal_actions)
            return f"You received {tiles(view.hand)}. Enact one policy; the other is discarded." + (
                " You may propose a veto instead." if veto else ""
            )
        case Phase.VETO_REPLY:
            return f"Chancellor {chancellor} proposes to veto this agenda. Do you agree?"
        case Phase.INVESTIGATE:
            return "Investigate a player's loyalty: you will see their party."
        case Phase.SPECIAL_ELECTION:
            return "Call a special election: choose the next presidential candidate."
        case Phase.EXECUTE:
            return "Execute a player."
    return "The game is over."
