"""Every interaction is acknowledged before the bot touches the database.

A storage call waits on the storage's single lock, behind every running game's writes, so
a handler that reads or writes before its first response could miss Discord's 3-second
acknowledgement window under load. The probe wraps every coroutine method of the bot's
`Storage` and records, at each call, whether the interaction being handled had already
been responded to.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import wraps
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.discord import texts
from bot.discord.components import ComponentId
from bot.storage import Storage

from .harness import Harness, embed_text, forge_click, harness, opened_lobby, told
from .lobby_desk import RecordingDesk
from .test_game_flow import FAST, open_table, reveal_posted


class AckProbe:
    """Records (interaction name, storage method, acknowledged?) for each storage call."""

    def __init__(self) -> None:
        self.current: discord.Interaction | None = None  # the latest interaction created
        self.calls: list[tuple[str, str, bool]] = []
        self.recording = True  # off while a game's own writes run (no interaction's)

    def watch_interactions(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Remember each interaction discord.py builds (before any handler runs); the
        harness settles one simulated action at a time, so it is the one in flight."""
        original = discord.Interaction.__init__
        probe = self

        def init(self: discord.Interaction, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            probe.current = self

        monkeypatch.setattr(discord.Interaction, "__init__", init)

    def wrap(self, storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
        """Replace every public coroutine method of `storage` (on the instance) by a
        recorder; the lobby store and the commands look them up on the instance."""
        for name, method in inspect.getmembers(storage, inspect.iscoroutinefunction):
            if not name.startswith("_"):
                monkeypatch.setattr(storage, name, self._recorder(name, method))

    def _recorder(
        self, name: str, method: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        @wraps(method)
        async def record(*args: Any, **kwargs: Any) -> Any:
            interaction = self.current
            if interaction is not None and self.recording:
                label = _label(interaction)
                self.calls.append((label, name, interaction.response.is_done()))
            return await method(*args, **kwargs)

        return record

    def early(self) -> list[tuple[str, str, bool]]:
        """Storage calls made before their interaction was acknowledged."""
        return [call for call in self.calls if not call[2]]

    def made_by(self, label: str) -> list[str]:
        """The storage methods called while handling interactions labelled `label`."""
        return [name for who, name, _ in self.calls if who == label]


def _label(interaction: discord.Interaction) -> str:
    data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
    if interaction.type is discord.InteractionType.application_command:
        return f"/{data.get('name')}"
    return f"click {data.get('custom_id', '?').rsplit(':', 1)[-1]}"


@pytest.fixture
async def probed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Harness, AckProbe]]:
    desk = RecordingDesk()
    probe = AckProbe()
    async with harness(tmp_path, lambda: desk) as table:
        probe.wrap(table.storage, monkeypatch)
        probe.watch_interactions(monkeypatch)
        yield table, probe


async def test_lobby_and_information_handlers_acknowledge_before_the_database(
    probed: tuple[Harness, AckProbe],
) -> None:
    table, probe = probed
    alice, bob, carol, dave = table.members[:4]
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = table.guild.add_member(table.env.create_user("moderator"), roles=[mods])

    opened = await alice.slash(table.channel, "newgame", fill=False)
    message = opened_lobby(opened).message
    # /newgame reads the server's settings and the channel's lobby, then writes it.
    assert {"get_settings", "get_channel_settings", "set_channel_settings"} <= set(
        probe.made_by("/newgame")
    ), probe.calls
    joined = await bob.click(message, label="Join")
    assert joined.acknowledged and not joined.ephemeral
    assert "set_channel_settings" in probe.made_by("click join"), probe.calls
    again = await bob.click(message, label="Join")
    assert told(again) == texts.ALREADY_IN_LOBBY
    await carol.slash(table.channel, "join")
    await carol.slash(table.channel, "leave")
    await alice.slash(table.channel, "addbot")
    await alice.click(message, label="Add AI")
    await alice.slash(table.channel, "kick", seat=3)
    await dave.click(message, label="Leave")  # not seated: a refusal after the read
    await carol.click(message, label="Start")  # not the host
    for command in ("history", "stats", "leaderboard", "profile"):
        await alice.slash(table.channel, command)
    await alice.slash(table.channel, "replay", game=1)  # reads the game after the ack
    await mod.slash(table.channel, "settings")
    await mod.slash(table.channel, "settings", players=7)
    await alice.slash(table.channel, "cancel")

    assert len(probe.calls) >= 20, probe.calls  # the probe saw the handlers' storage calls
    assert probe.early() == [], probe.early()


async def test_after_a_restart_the_lobby_is_read_only_after_the_ack(
    probed: tuple[Harness, AckProbe],
) -> None:
    table, probe = probed
    alice, bob, carol = table.members[:3]
    opened = await alice.slash(table.channel, "newgame")
    message = opened_lobby(opened).message
    await table.restart()  # a fresh bot: it knows no lobby until it reads one
    probe.calls.clear()
    status = await bob.slash(table.channel, "status")
    assert status.ephemeral and status.response is not None
    assert alice.mention in embed_text(status.response)  # the lobby, ephemerally
    await table.restart()
    refused = await bob.slash(table.channel, "demo")
    assert told(refused) == texts.LOBBY_HERE_NO_DEMO
    await table.restart()
    joined = await carol.click(message, label="Join")
    assert joined.acknowledged and not joined.ephemeral
    await table.restart()
    cancelled = await alice.slash(table.channel, "cancel")
    assert told(cancelled) == texts.LOBBY_CANCEL_DONE
    # Each handler above read the lobby from the database, after acknowledging.
    for label in ("/status", "/demo", "click join", "/cancel"):
        assert "get_channel_settings" in probe.made_by(label), (label, probe.calls)
    assert probe.early() == [], probe.early()


async def test_demo_and_a_finished_games_buttons_ack_before_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.discord import games as games_module

    monkeypatch.setitem(games_module.DEMO_PACE, "fast", 0.0)  # no pauses in a test
    probe = AckProbe()
    async with open_table(tmp_path, FAST) as table:
        probe.wrap(table.storage, monkeypatch)
        probe.watch_interactions(monkeypatch)
        alice = table.members[0]
        await alice.slash(table.channel, "demo", players=5, speed="fast")
        assert "create_game" in probe.made_by("/demo"), probe.calls
        probe.recording = False  # the game's own writes belong to no interaction
        await table.until(lambda: reveal_posted(table), what="the demo's end")
        await table.until(lambda: table.bot.games.game_in(table.channel.id) is None)
        game_id = (await table.storage.recent_games(limit=1))[0].id
        probe.recording = True
        # A finished game's messages show no buttons; a stale client still clicks one
        # (the reason is read from the database).
        role = str(ComponentId(str(game_id), "role"))
        over = await forge_click(table, alice, table.channel_messages()[0], role)
        assert told(over) == texts.GAME_OVER
        assert "load_game" in [name for _, name, _ in probe.calls], probe.calls
        assert probe.early() == [], probe.early()
