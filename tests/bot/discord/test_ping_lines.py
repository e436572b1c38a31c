"""The lines that ping a member whose decision was edited into an earlier message: one
goes only once none of the calls it named is still open.

A focused test of the front-end's bookkeeping, through its port methods (`ask`,
`withdraw`, `flush`) with Discord's requests stubbed: the case it covers (a President
and a Chancellor pinged in one line for their claims, then the President's peek claim)
needs a game that reaches a policy peek with both seats human, which a driven game
reaches only by chance.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot import notices
from bot.discord import texts
from bot.discord.frontend import DiscordFrontend, Edited
from bot.discord.rounds import RoundMessage
from bot.ports import Option, Prompt, PromptKind, SeatInfo, Table
from engine import ChancellorClaim, Game, Nominate, PeekClaim, Policy, PresidentClaim

GUILD, CHANNEL, ROUND = 5, 6, 100  # ROUND: the round message the calls are edited into
USERS = (11, 12, 13, 14, 15)
TABLE = Table(
    1,
    tuple(SeatInfo(s, name, USERS[s]) for s, name in enumerate("abcde")),
    guild_id=GUILD,
    channel_id=CHANNEL,
)
L, F = Policy.LIBERAL, Policy.FASCIST


def prompt(pid: str, seat: int, action: Any, kind: PromptKind = PromptKind.CLAIM) -> Prompt:
    view = Game(5, seed=1).view(seat)
    options = (Option("say it", action), Option("say nothing", None))
    return Prompt(pid, seat, kind, "?", options, None, view)


class Channel:
    """The game's channel, as far as ping lines go: posts them, deletes them."""

    def __init__(self) -> None:
        self.posted: dict[int, str] = {}  # line id -> its text
        self.deleted: list[int] = []

    async def send(self, table: Table, content: str, **kw: Any) -> Any:
        line = 1000 + len(self.posted)
        self.posted[line] = content
        return SimpleNamespace(id=line, attachments=[])

    def get_partial_message(self, line: int) -> Any:
        async def delete() -> None:
            self.deleted.append(line)

        return SimpleNamespace(delete=delete)


@pytest.fixture
def channel(monkeypatch: pytest.MonkeyPatch) -> tuple[DiscordFrontend, Channel]:
    frontend = DiscordFrontend(cast(discord.Client, None), dm_secrets=False)
    fake = Channel()

    async def edit(*args: Any, **kw: Any) -> Edited:
        return Edited.DONE  # every edit of the round message goes through

    monkeypatch.setattr(frontend, "_send", fake.send)
    monkeypatch.setattr(frontend, "_edit", edit)
    monkeypatch.setattr(frontend, "_channel", lambda table: fake)
    frontend.state(TABLE.game_id).round = RoundMessage(ROUND, ["The story so far."])
    return frontend, fake


def named(line: str) -> set[int]:
    """The members a ping line pings (its mentions)."""
    return {u for u in USERS if f"<@{u}>" in line}


async def test_a_line_naming_a_call_still_open_stays_when_a_newer_line_pings(
    channel: tuple[DiscordFrontend, Channel],
) -> None:
    frontend, fake = channel
    president = prompt("c3.0", 0, PresidentClaim(0, (L, L, F), (L, F)))
    chancellor = prompt("c3.1", 1, ChancellorClaim(1, (L, F)))
    # Both claims are edited into the round message at once: one line pings both.
    await frontend.ask(TABLE, president)
    await frontend.ask(TABLE, chancellor)
    await frontend.flush(TABLE)
    ((first, line),) = fake.posted.items()
    assert named(line) == {USERS[0], USERS[1]}
    assert texts.PING_CLAIM in line and f"/{GUILD}/{CHANNEL}/{ROUND}" in line
    # The President claims, then has the peek to claim: a new line pings them. The first
    # still names the Chancellor's open claim: it stays (deleting it would take back
    # their ping).
    await frontend.withdraw(TABLE, president, notices.CLAIM_MADE)
    await frontend.ask(TABLE, prompt("c3.2", 0, PeekClaim(0, (L, L, F))))
    await frontend.flush(TABLE)
    second = max(fake.posted)
    assert second != first and named(fake.posted[second]) == {USERS[0]}
    assert fake.deleted == []
    # Once every call it named is closed, the next line takes it (and the second) away.
    await frontend.withdraw(TABLE, chancellor, notices.CLAIM_MADE)
    await frontend.withdraw(TABLE, prompt("c3.2", 0, PeekClaim(0, (L, L, F))), notices.SAID_NOTHING)
    nominate = prompt("a4", 2, Nominate(2, 3), PromptKind.ACTION)
    await frontend.ask(TABLE, nominate)
    await frontend.flush(TABLE)
    third = max(fake.posted)
    assert named(fake.posted[third]) == {USERS[2]}
    assert sorted(fake.deleted) == [first, second]


@pytest.mark.parametrize(("guild", "where"), [(GUILD, str(GUILD)), (None, "@me")])
async def test_a_ping_line_links_to_its_call_before_the_server_is_cached(
    monkeypatch: pytest.MonkeyPatch, guild: int | None, where: str
) -> None:
    """The link is discord.py's (`jump_url`), from the ids the game knows: a line posted
    right after a restart, before the gateway has told the bot its servers, still links
    into the server (`PartialMessage.jump_url` reads the server from the cache, and would
    link to '@me' then)."""
    client = discord.Client(intents=discord.Intents.none())  # never connected: no cache
    try:
        frontend = DiscordFrontend(client, dm_secrets=False)
        fake = Channel()

        async def edit(*args: Any, **kw: Any) -> Edited:
            return Edited.DONE

        monkeypatch.setattr(frontend, "_send", fake.send)
        monkeypatch.setattr(frontend, "_edit", edit)
        table = replace(TABLE, guild_id=guild)
        frontend.state(table.game_id).round = RoundMessage(ROUND, ["The story so far."])
        await frontend.ask(table, prompt("a4", 2, Nominate(2, 3), PromptKind.ACTION))
        await frontend.flush(table)
        [line] = fake.posted.values()
        assert f"https://discord.com/channels/{where}/{CHANNEL}/{ROUND}" in line
    finally:
        await client.close()
