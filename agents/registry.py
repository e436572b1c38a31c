"""Agents by name, and agent specs such as "ismcts:iterations=10000,seconds=2".

The arena, the game session and the bot all build agents from a spec string, so a
budget (and an agent's own settings, such as belief-ismcts's `wild`) can be written on a
command line or stored with a seat in the database.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .base import AgentBase, Budget
from .behaviour import parse_style_prior

# name -> "module:class", imported on first use (search agents pull in more code).
AGENTS: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "selfish": "agents.selfish:SelfishAgent",
    "belief": "agents.belief_agent:BeliefAgent",
    "ismcts": "agents.ismcts:SOISMCTSAgent",
    "belief-ismcts": "agents.belief_ismcts:BeliefISMCTSAgent",
    "humanlike": "agents.humanlike:HumanlikeAgent",
}


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError("a share lies between 0 and 1")
    return value


# Specs come from lobbies, the database and command lines: a `fit=` that could name any
# file would let whoever writes a spec make the bot open (and report on) any path on the
# machine. Fits are read only from the agents package (the shipped fits) and from the
# directories listed, `os.pathsep`-separated, in this variable (read at each check).
FIT_DIR_VARIABLE = "SHBOT_FIT_DIR"
PACKAGE_DIR = Path(__file__).resolve().parent


def fit_dirs() -> list[Path]:
    """The directories `fit=` may read from: the agents package, then `SHBOT_FIT_DIR`'s."""
    dirs = [PACKAGE_DIR]
    for entry in os.environ.get(FIT_DIR_VARIABLE, "").split(os.pathsep):
        if entry.strip():
            dirs.append(Path(entry.strip()).expanduser().resolve())
    return dirs


def _iterations(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("a count of iterations is at least 1")
    return value


def _fit_file(text: str) -> Path:
    """The fit `text` names, resolved; a ValueError unless it is a JSON file in `fit_dirs()`.

    A relative name is looked up in each fit directory, then from the working directory
    (so `agents/behaviour_fitted.json` works from the repository root). Symbolic links
    are followed before the check, so a link cannot lead out of the allowed directories.
    """
    dirs = fit_dirs()
    try:
        path = Path(text).expanduser()
        candidates = [path] if path.is_absolute() else [*(d / path for d in dirs), path]
        inside = [
            resolved
            for resolved in (c.resolve() for c in candidates)
            if resolved.suffix == ".json" and any(resolved.is_relative_to(d) for d in dirs)
        ]
        if not inside:  # said before looking, so that a spec cannot probe the disk
            raise ValueError(
                f"a fit must be a .json file in the agents package or in a directory "
                f"listed in {FIT_DIR_VARIABLE}, not {text}"
            )
        for resolved in inside:
            if resolved.is_file():
                return resolved
    except (OSError, RuntimeError) as exc:  # an unreadable folder, an unknown ~user
        raise ValueError(f"cannot read a behaviour fit at {text} ({exc})") from exc
    raise ValueError(f"no behaviour fit at {text}")


# Settings an agent takes besides its budget: option -> reader of its text (raising
# ValueError with a reason). They let an A/B run a variant from main, without a patch.
OPTIONS: dict[str, dict[str, Callable[[str], object]]] = {
    "belief": {"fit": _fit_file, "styles": parse_style_prior},
    "belief-ismcts": {
        "fit": _fit_file,
        "wild": _share,
        "styles": parse_style_prior,
        "fascist_ballots": _iterations,
    },
    # Habit rates of the scripted human-style player (agents.humanlike.HABITS).
    "humanlike": {
        habit: _share
        for habit in ("test", "trust", "honest", "lie", "late", "silent", "distance", "chaos")
    },
}


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An agent kind with its budget and settings, e.g. `AgentSpec("ismcts", Budget(10000))`.

    `options` are the agent's own settings (see `OPTIONS`) as (name, text) pairs in
    the order written; they are checked when parsed and read when the agent is built.
    """

    name: str
    budget: Budget = field(default_factory=Budget)
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Read "name" or "name:iterations=I,seconds=S,..."; raise ValueError with a reason."""
        name, _, written = text.strip().partition(":")
        if name not in AGENTS:
            raise ValueError(f"Unknown agent {name!r}; choose from {', '.join(AGENTS)}.")
        own = OPTIONS.get(name, {})
        iterations: int | None = None
        seconds: float | None = None
        options: dict[str, str] = {}
        for item in filter(None, (o.strip() for o in written.split(","))):
            key, _, value = item.partition("=")
            try:
                if key == "iterations":
                    iterations = int(value)
                elif key == "seconds":
                    seconds = float(value)
                elif key in own:
                    own[key](value)  # raises with the reason if the value is bad
                    options[key] = value
                else:
                    raise ValueError(f"unknown option {key!r}")
            except ValueError as exc:
                raise ValueError(f"Bad agent option {item!r} in {text!r}: {exc}.") from exc
        if (iterations is not None and iterations < 1) or (seconds is not None and seconds <= 0):
            raise ValueError(f"Budgets must be positive in {text!r}.")
        return cls(name, Budget(iterations, seconds), tuple(options.items()))

    @classmethod
    def salvage(
        cls, text: str, fallback: str, usable: Callable[[str], bool] = lambda name: True
    ) -> tuple[AgentSpec, str | None]:
        """The spec of `text`, dropping options that no longer read; else `fallback`.

        For specs stored with a game: a fit file removed since, or an agent renamed or
        no longer importable (`usable(name)` is False), must not leave a resumed seat
        without a working agent. Returns the spec and, when anything was dropped or
        replaced, a reason for the log (None when it read as is).
        """
        try:
            spec = cls.parse(text)
        except ValueError as exc:
            reason = str(exc)
        else:
            if usable(spec.name):
                return spec, None
            reason = f"agent {spec.name!r} is not available"
        name, _, written = text.strip().partition(":")
        kept = []
        for item in filter(None, (o.strip() for o in written.split(","))):
            try:
                cls.parse(f"{name}:{item}")
            except ValueError:
                continue
            kept.append(item)
        for candidate in (name + (":" + ",".join(kept) if kept else ""), fallback):
            try:
                spec = cls.parse(candidate)
            except ValueError:
                continue
            if usable(spec.name):
                return spec, reason
        return cls("random"), reason  # always there, and never fails

    def __str__(self) -> str:
        written = []
        if self.budget.iterations is not None:
            written.append(f"iterations={self.budget.iterations}")
        if self.budget.seconds is not None:
            written.append(f"seconds={self.budget.seconds:g}")
        written.extend(f"{key}={value}" for key, value in self.options)
        return self.name + (":" + ",".join(written) if written else "")

    def settings(self) -> dict[str, object]:
        """The options read into the values the agent's constructor takes."""
        own = OPTIONS.get(self.name, {})
        return {key: own[key](value) for key, value in self.options}

    def build(self, seat: int, seed: int | None = None) -> AgentBase:
        """A fresh agent of this kind for `seat`."""
        module_name, _, class_name = AGENTS[self.name].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            raise ValueError(f"Agent {self.name!r} is not available: {exc}.") from exc
        agent_class: type[AgentBase] = getattr(module, class_name)
        return agent_class(seat, seed, self.budget, **self.settings())


def make_agent(spec: str, seat: int, seed: int | None = None) -> AgentBase:
    """Build the agent a spec string names, for `seat`."""
    return AgentSpec.parse(spec).build(seat, seed)
