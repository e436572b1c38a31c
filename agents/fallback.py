"""The last resort when a seat's own agent cannot answer: rule agents, never dice.

`belief` (exact inference with a heuristic player, a few milliseconds and no search) is
tried first, then `selfish`; both are deterministic given the seed and the view, and
cannot hang. Only if both raise (never seen) is the first legal action taken, so that a
decision always ends in a legal move.
"""

from __future__ import annotations

from engine import Action, PlayerView

from .base import AgentBase

RULE_AGENTS = ("belief", "selfish")


def rule_action(view: PlayerView, seed: int) -> tuple[Action, str]:
    """A legal action for `view` and the name of the rule agent that chose it."""
    from .registry import AgentSpec  # the registry imports every agent module lazily

    if view.seat is None or not view.legal_actions:
        raise ValueError("A rule answer needs a seat with something to decide.")
    for name in RULE_AGENTS:
        try:
            agent: AgentBase = AgentSpec(name).build(view.seat, seed)
            action = agent.act(view)
        except Exception:  # the next rule agent, then the first legal action
            continue
        if action in view.legal_actions:
            return action, name
    return view.legal_actions[0], "first legal action"
