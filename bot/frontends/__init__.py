"""Front-ends that implement `bot.ports.Frontend`: the terminal and the test double.

(The Discord front-end lives in `bot.discord`.) A front-end that answers prompts itself
needs the session to send the answers to: `bind_frontend` hands it over.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..ports import Frontend, GameControl


@runtime_checkable
class SessionAware(Protocol):
    """A front-end that sends answers to the sessions it is bound to."""

    def bind(self, control: GameControl) -> None:
        """Remember `control` as the session of game `control.game_id`."""
        ...


def bind_frontend(frontend: Frontend, control: GameControl) -> None:
    """Tell `frontend` about a session if it wants to know (the Discord one looks it up)."""
    if isinstance(frontend, SessionAware):
        frontend.bind(control)
