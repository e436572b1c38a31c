"""Restart-safe buttons and selects: stable custom_ids routed by one `DynamicItem`.

Every component the bot sends carries `sh:v1:<game>:<action>[:<arg>]`, where `<game>` is
a lobby id (`L…`) or a stored game id, `<action>` a verb (`join`, `role`…) or a session
prompt id, and `<arg>` an option. The `Route` dynamic item, registered in `setup_hook`,
matches that template, so a click reaches the bot whether or not the message was sent
by this process: after a restart the buttons of old messages still work. Nothing here
keeps state; the router looks everything up from the ids and checks it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

import discord
from discord.ui import Button, DynamicItem, Item, Select

PREFIX = "sh:v1:"
_GAME = r"[A-Za-z0-9_-]+"
_TOKEN = r"[A-Za-z0-9_.,-]+"  # session prompt ids look like "a12" or "c12.40"
TEMPLATE = re.compile(rf"sh:v1:(?P<game>{_GAME}):(?P<action>{_TOKEN})(?::(?P<arg>{_TOKEN}))?")
MAX_CUSTOM_ID = 100  # Discord's limit


@dataclass(frozen=True, slots=True)
class ComponentId:
    """The parts of a custom_id: which game (or lobby), which action, which option."""

    game: str
    action: str
    arg: str | None = None

    def __str__(self) -> str:
        text = f"{PREFIX}{self.game}:{self.action}" + (f":{self.arg}" if self.arg else "")
        if len(text) > MAX_CUSTOM_ID or TEMPLATE.fullmatch(text) is None:
            raise ValueError(f"Not a valid custom_id: {text!r}")
        return text

    @classmethod
    def parse(cls, custom_id: str) -> ComponentId | None:
        """The parts of a custom_id of ours, or None for anything else."""
        match = TEMPLATE.fullmatch(custom_id)
        return None if match is None else cls.from_match(match)

    @classmethod
    def from_match(cls, match: re.Match[str]) -> ComponentId:
        """The parts matched by `TEMPLATE`."""
        return cls(match["game"], match["action"], match["arg"])


class ComponentRouter(Protocol):
    """What handles a click: the bot (see `app.SecretHitlerBot.on_component`)."""

    async def on_component(self, interaction: discord.Interaction, cid: ComponentId) -> None:
        """Check the click against the lobby or game and answer it within 3 seconds."""
        ...


class Route(DynamicItem[Item[Any]], template=TEMPLATE):
    """Any of our buttons or selects: hands the click and its parsed id to the router."""

    def __init__(self, item: Item[Any], cid: ComponentId) -> None:
        super().__init__(item)
        self.cid = cid

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: Item[Any], match: re.Match[str], /
    ) -> Route:
        """Rebuild the item of a clicked component from its custom_id alone."""
        return cls(item, ComponentId.from_match(match))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Route the click (the client is the bot, which is a `ComponentRouter`)."""
        router: ComponentRouter = interaction.client  # type: ignore[assignment]
        await router.on_component(interaction, self.cid)


def button(
    cid: ComponentId,
    label: str,
    *,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
    row: int | None = None,
) -> Route:
    """A routed button."""
    return Route(
        Button(label=label, custom_id=str(cid), style=style, disabled=disabled, row=row), cid
    )


def select(
    cid: ComponentId,
    options: list[discord.SelectOption],
    *,
    placeholder: str,
    row: int | None = None,
) -> Route:
    """A routed single-choice select menu (Discord allows 25 options; a table has 10)."""
    return Route(
        Select(
            custom_id=str(cid),
            options=options,
            placeholder=placeholder,
            min_values=1,
            max_values=1,
            row=row,
        ),
        cid,
    )


def view_of(*items: Route) -> discord.ui.View:
    """A timeout-free view of routed items (discord.py keeps no per-message state for it)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def selected_values(interaction: discord.Interaction) -> list[str]:
    """The values a select interaction chose ([] for a button)."""
    data: Any = interaction.data or {}
    values = data.get("values", [])
    return [str(v) for v in values] if isinstance(values, list) else []
