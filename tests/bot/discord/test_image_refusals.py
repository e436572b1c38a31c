"""A channel that refuses the board image costs one refused request, not one a message.

After a restart, discord.py's permission cache is empty until the gateway fills it: the
front-end cannot tell that Attach Files is missing, so the first message with the board
image is refused (403) and goes again in text. Every later one would be refused the same
way; the front-end remembers the refusal for the channel instead, until the cache can
tell (or a while has passed). The front-end's own methods, with Discord's requests
stubbed: simcord's gateway fills the cache before the first request can be refused.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import MagicMock

import discord
import pytest

from bot.discord import frontend as frontend_module
from bot.discord.board import Look
from bot.discord.frontend import DiscordFrontend, Edited

from .test_ping_lines import CHANNEL, TABLE

BOARD = ("board.png", b"png")
MISSING_PERMISSIONS = {"code": 50013, "message": "Missing Permissions"}


class Discord:
    """The game's channel and the bot's cache of it: refuses files until `granted`."""

    def __init__(self) -> None:
        self.granted = False
        self.cache: dict[int, Any] = {}  # the permission cache: empty, as after a restart
        self.requests: list[tuple[str, bool]] = []  # ("send" / "edit", with files)

    def client(self) -> discord.Client:
        return cast(
            discord.Client,
            SimpleNamespace(
                is_ready=lambda: False,
                get_guild=lambda guild_id: None,
                get_channel=lambda channel_id: self.cache.get(channel_id),
            ),
        )

    def _answer(self, kind: str, files: list[Any]) -> None:
        self.requests.append((kind, bool(files)))
        if files and not self.granted:
            response = SimpleNamespace(status=403, reason="Forbidden")
            raise discord.Forbidden(response, MISSING_PERMISSIONS)  # type: ignore[arg-type]

    async def send(self, *args: Any, **kw: Any) -> Any:
        self._answer("send", kw.get("files") or [])
        return SimpleNamespace(id=500 + len(self.requests), attachments=kw.get("files") or [])

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(**kw: Any) -> None:
            self._answer("edit", kw.get("attachments") or [])

        return SimpleNamespace(edit=edit)

    def fill_cache(self) -> None:
        """The gateway told the bot its server: the cache knows its permissions now."""
        channel = MagicMock(spec=discord.TextChannel)
        channel.permissions_for.return_value = discord.Permissions(
            view_channel=True, send_messages=True, embed_links=True, attach_files=self.granted
        )
        self.cache[CHANNEL] = channel


@pytest.fixture
def setup(monkeypatch: pytest.MonkeyPatch) -> tuple[DiscordFrontend, Discord]:
    fake = Discord()
    frontend = DiscordFrontend(fake.client(), dm_secrets=False)
    monkeypatch.setattr(frontend, "_channel", lambda table: fake)
    return frontend, fake


async def post_board(frontend: DiscordFrontend) -> None:
    await frontend._send(TABLE, "", look=Look("The story.", image=True), files=[BOARD])


async def test_a_refused_image_is_not_tried_again_in_that_channel_until_it_may_be(
    setup: tuple[DiscordFrontend, Discord],
) -> None:
    frontend, fake = setup
    await post_board(frontend)  # refused, then posted in text: the one refusal paid
    assert fake.requests == [("send", True), ("send", False)]
    fake.requests.clear()
    await post_board(frontend)  # the permission is still missing: text at once
    edited = await frontend._edit(TABLE, 7, Look("The story.", image=True), files=[BOARD])
    assert edited is Edited.TEXT
    assert fake.requests == [("send", False), ("edit", False)]
    # The permission is given, and the cache learns it (the gateway is ready, or a
    # channel update): the image goes again.
    fake.granted = True
    fake.fill_cache()
    fake.requests.clear()
    await post_board(frontend)
    assert fake.requests == [("send", True)]


async def test_a_refusal_the_cache_never_confirms_is_tried_again_after_a_while(
    setup: tuple[DiscordFrontend, Discord], monkeypatch: pytest.MonkeyPatch
) -> None:
    frontend, fake = setup
    clock = [1000.0]
    monkeypatch.setattr(frontend_module.time, "monotonic", lambda: clock[0])
    await post_board(frontend)
    fake.granted = True  # given, but nothing tells this bot (its cache stays empty)
    fake.requests.clear()
    await post_board(frontend)
    assert fake.requests == [("send", False)]
    clock[0] += frontend_module.FILES_REFUSED_S
    fake.requests.clear()
    await post_board(frontend)
    assert fake.requests == [("send", True)]
