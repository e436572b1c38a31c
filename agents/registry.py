"""Agents by name, and agent specs such as "ismcts:iterations=10000,seconds=2".

The arena, the game session and the bot all build agents from a spec string, so a
budget can be written on a command line or stored with a seat in the database.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from .base import AgentBase, Budget

# name -> "module:class", imported on first use (search agents pull in more code).
AGENTS: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "selfish": "agents.selfish:SelfishAgent",
    "belief": "agents.belief_agent:BeliefAgent",
    "ismcts": "agents.ismcts:SOISMCTSAgent",
    "belief-ismcts": "agents.belief_ismcts:BeliefISMCTSAgent",
}


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An agent kind with its budget, e.g. `AgentSpec("ismcts", Budget(iterations=10000))`."""

    name: str
    budget: Budget = field(default_factory=Budget)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Read "name" or "name:iterations=I,seconds=S"; raise ValueError with a reason."""
        name, _, options = text.strip().partition(":")
        if name not in AGENTS:
            raise ValueError(f"Unknown agent {name!r}; choose from {', '.join(AGENTS)}.")
        iterations: int | None = None
        seconds: float | None = None
        for item in filter(None, (o.strip() for o in options.split(","))):
            key, _, value = item.partition("=")
            try:
                if key == "iterations":
                    iterations = int(value)
                elif key == "seconds":
                    seconds = float(value)
                else:
                    raise ValueError(f"unknown option {key!r}")
            except ValueError as exc:
                raise ValueError(f"Bad agent option {item!r} in {text!r}: {exc}.") from exc
        if (iterations is not None and iterations < 1) or (seconds is not None and seconds <= 0):
            raise ValueError(f"Budgets must be positive in {text!r}.")
        return cls(name, Budget(iterations, seconds))

    def __str__(self) -> str:
        options = []
        if self.budget.iterations is not None:
            options.append(f"iterations={self.budget.iterations}")
        if self.budget.seconds is not None:
            options.append(f"seconds={self.budget.seconds:g}")
        return self.name + (":" + ",".join(options) if options else "")

    def build(self, seat: int, seed: int | None = None) -> AgentBase:
        """A fresh agent of this kind for `seat`."""
        module_name, _, class_name = AGENTS[self.name].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            raise ValueError(f"Agent {self.name!r} is not available: {exc}.") from exc
        agent_class: type[AgentBase] = getattr(module, class_name)
        return agent_class(seat, seed, self.budget)


def make_agent(spec: str, seat: int, seed: int | None = None) -> AgentBase:
    """Build the agent a spec string names, for `seat`."""
    return AgentSpec.parse(spec).build(seat, seed)
