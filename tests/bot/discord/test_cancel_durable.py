"""A /cancel request and each agreement to it are stored before the member is told they
count, through discord.py's real dispatch.

They were stored just after the answer (the answer first, within Discord's 3 seconds
of a database that may be slow): a crash in between lost a request its asker had seen
posted, or an agreement its member had been told counted, and a write that failed was
only logged, the member still told it was recorded. Now the interaction is acknowledged
first (privately), the note stored, and only then is the member told, or, if the store
failed, told precisely that nothing was recorded, with the session's note back to what
is stored.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import simcord

from bot.discord import texts
from bot.discord.games import CANCEL_NOTE
from bot.storage import StorageError

from .driver import components
from .harness import Harness, labels, public_followup, text, told
from .test_game_faults_more import private_texts, public_texts
from .test_game_flow import FAST, open_table, start_game


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


class StateWrites:
    """Wraps the storage's `set_session_state`: records, for each write that succeeded,
    what it stored and how many requests the bot had made of Discord by then; refuses
    every write while `failing`."""

    def __init__(self, table: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
        self.table = table
        self.done: list[tuple[str, int]] = []  # (the state stored as JSON, requests made)
        self.failing = False
        original: Callable[..., Awaitable[None]] = table.storage.set_session_state

        async def write(game_id: int, state: Any) -> None:
            if self.failing:
                raise StorageError("database is locked")
            await original(game_id, state)
            self.done.append((json.dumps(state), len(table.env.http_requests)))

        monkeypatch.setattr(table.storage, "set_session_state", write)

    def stored_before(self, marker: str, said: str) -> bool:
        """Whether a state holding `marker` was stored before the bot first sent Discord
        a request whose body holds `said` (the member told)."""
        sent = [i for i, r in enumerate(self.table.env.http_requests) if said in json.dumps(r.json)]
        assert sent, f"nothing sent says {said!r}"
        stored = [made for state, made in self.done if marker in state]
        return bool(stored) and stored[0] <= sent[0]


def request_of(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The public /cancel request, the message whose button players press: a public
    followup of the asker's private acknowledgement."""
    request = public_followup(result)
    assert texts.BUTTON_END_GAME in labels(request)
    return request


def shown_request(result: simcord.InteractionResult) -> simcord.ResponseMessage:
    """The public /cancel request wherever the interaction posted it."""
    shown = [result.response, *result.followups]
    public = [m for m in shown if m is not None and not m.ephemeral]
    assert len(public) == 1, result
    return public[0]


async def stored_note(table: Harness, game_id: int) -> Any:
    """The /cancel note as the database holds it (None: no request open)."""
    stored = await table.storage.load_game(game_id)
    return (stored.session_state or {}).get("notes", {}).get(CANCEL_NOTE)


async def test_a_request_and_an_agreement_are_stored_before_the_member_is_told(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol, dave = table.members[:4]
    game_id = await start_game(table, [alice, bob, carol, dave], players=5)
    writes = StateWrites(table, monkeypatch)

    asked = await alice.slash(table.channel, "cancel")  # the host: 1 of the 3 needed
    request = shown_request(asked)
    ask = texts.CANCEL_ASK.format(who=alice.mention, count=1, needed=3)
    assert text(request) == ask
    request_id = str((await stored_note(table, game_id))["request"])
    assert writes.stored_before(request_id, ask)  # posted once stored
    assert request_of(asked).id == request.id and told(asked) == texts.CANCEL_ASKED
    assert writes.stored_before(request_id, texts.CANCEL_ASKED)

    agreed = await bob.click(request, label=texts.BUTTON_END_GAME)
    said = texts.CANCEL_AGREED.format(count=2, needed=3)
    assert told(agreed) == said
    assert sorted((await stored_note(table, game_id))["votes"]) == sorted([alice.id, bob.id])
    assert writes.stored_before(str(bob.id), said)
    assert (await table.storage.load_game(game_id)).status == "running"


async def test_a_request_the_database_refuses_is_told_and_nobody_is_asked(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = table.members[:3]
    table.expect_warning("bookkeeping not stored")  # the session logs the failed write
    game_id = await start_game(table, [alice, bob, carol], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    writes = StateWrites(table, monkeypatch)
    writes.failing = True
    before = len(table.channel_messages())

    refused = await alice.slash(table.channel, "cancel")
    assert private_texts(refused) == [texts.CANCEL_NOT_RECORDED]
    assert public_texts(refused) == []  # no request posted: nobody is asked
    assert all(
        not components(m) or texts.BUTTON_END_GAME not in labels(m)
        for m in table.channel_messages()[before:]
    )
    assert session.note(CANCEL_NOTE) is None  # as stored: no request open
    assert await stored_note(table, game_id) is None

    # The database back, /cancel works as ever.
    writes.failing = False
    request = shown_request(await alice.slash(table.channel, "cancel"))
    assert (await stored_note(table, game_id)) is not None
    await bob.click(request, label=texts.BUTTON_END_GAME)
    assert (await table.storage.load_game(game_id)).status == "cancelled"


async def test_an_agreement_the_database_refuses_is_told_and_not_counted(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol, dave = table.members[:4]
    table.expect_warning("bookkeeping not stored")
    game_id = await start_game(table, [alice, bob, carol, dave], players=5)
    session = table.bot.games.manager.get(game_id)
    assert session is not None
    writes = StateWrites(table, monkeypatch)
    request = shown_request(await alice.slash(table.channel, "cancel"))  # 1 of the 3 needed
    writes.failing = True

    refused = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert private_texts(refused) == [texts.CANCEL_AGREE_NOT_RECORDED]
    assert session.note(CANCEL_NOTE)["votes"] == [alice.id]  # as stored: bob's is not in
    assert (await stored_note(table, game_id))["votes"] == [alice.id]

    # Pressed again once the database is back, it counts (and is stored first).
    writes.failing = False
    again = await bob.click(request, label=texts.BUTTON_END_GAME)
    assert told(again) == texts.CANCEL_AGREED.format(count=2, needed=3)
    assert sorted((await stored_note(table, game_id))["votes"]) == sorted([alice.id, bob.id])
    assert (await table.storage.load_game(game_id)).status == "running"
