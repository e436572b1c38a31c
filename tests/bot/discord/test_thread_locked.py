"""A game whose thread is archived or locked mid-game, through discord.py's real dispatch.

What Discord does with a thread, as its documentation says it (simcord keeps a thread's
`archived` and `locked` flags but does not act on them, so `ThreadRules` below answers
the bot's requests in such a thread as Discord would; the bot has the invite link's
permissions, without Manage Threads):

- "Users cannot edit messages, add reactions, use application commands, or join
  archived threads. The only operation that should happen within an archived thread is
  messages being deleted. Sending a message will automatically unarchive the thread,
  unless the thread has been locked by a moderator." An edit answers 400 / 50083
  "Thread is archived".
- Modify Channel on a thread: "When setting archived to false, when locked is also
  false, only the SEND_MESSAGES permission is required. Otherwise, requires the
  MANAGE_THREADS permission."
- In a locked thread only moderators (Manage Threads) post: 403 / 160005 "Thread is
  locked".

So an archived thread (Discord archives an idle one by itself) is no reason to stop:
the bot may reopen it, as any post of anyone would; a locked one is a moderator's
decision, which the bot waits out (it could not unlock it without Manage Threads, and
should not with it): the game pauses, saying so, and goes on once it is unlocked.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import simcord
import simcord.http.router as router
from simcord.backend import serializers
from simcord.backend.errors import BackendError

from bot.discord import delivery, texts

from .driver import PAUSED, Driver, text_of
from .harness import Harness, forge_click, opened_lobby, told
from .test_delivery_faults import missing_narration
from .test_game_flow import FAST, hidden_lines, open_table, reveal_posted, stored
from .test_threads_the_bot_cannot_post_in import no_manage_threads, thread


@dataclass
class ThreadRules:
    """Discord's answers to the bot in an archived or locked thread (see the module
    docstring), in front of simcord's router."""

    backend: Any
    thread_id: int
    reopened: list[str | None] = field(default_factory=list)  # the bot's unarchives' reasons
    refused: list[tuple[str, int]] = field(default_factory=list)  # (method, code)

    def metadata(self) -> Any:
        return self.backend.get_channel(self.thread_id).thread_metadata

    def set(self, **flags: bool) -> None:
        """A moderator (or Discord's idle timer) changes the thread: the gateway says so."""
        self.backend.edit_channel(self.thread_id, {}, thread_metadata=flags)

    def answer(self, method: str, path: str, body: Any, reason: str | None) -> Any:
        """Raise Discord's refusal, or return Discord's answer where simcord's differs
        (it asks Manage Channels for any change of a channel, unarchiving included);
        None to let simcord answer."""
        meta, base = self.metadata(), f"/channels/{self.thread_id}"
        if path == f"{base}/messages" and method == "POST":
            if meta.archived and meta.locked:  # nobody but a moderator reopens it
                self._refuse(method, 400, delivery.ARCHIVED_THREAD, "Thread is archived")
            if meta.locked:
                self._refuse(method, 403, delivery.THREAD_LOCKED, "Thread is locked")
            if meta.archived:  # a post reopens an unlocked thread
                self.set(archived=False)
        elif path.startswith(f"{base}/messages/") and method == "PATCH":
            if meta.archived:
                self._refuse(method, 400, delivery.ARCHIVED_THREAD, "Thread is archived")
            if meta.locked:
                self._refuse(method, 403, delivery.THREAD_LOCKED, "Thread is locked")
        elif path == base and method == "PATCH":
            assert body == {"archived": False}, body  # the bot changes nothing else
            if meta.locked:  # Manage Threads needed
                self._refuse(method, 403, delivery.MISSING_PERMISSIONS, "Missing Permissions")
            self.reopened.append(reason)
            self.set(archived=False)
            return dict(
                serializers.channel_payload(self.backend, self.backend.get_channel(self.thread_id))
            )
        return None

    def _refuse(self, method: str, status: int, code: int, message: str) -> None:
        self.refused.append((method, code))
        raise BackendError(status, code, message)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_table(tmp_path, FAST) as h:
        yield h


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry failed requests after a hundredth of a second, not a second."""
    monkeypatch.setattr(delivery, "FIRST_BACKOFF_S", 0.01)


@pytest.fixture
def rules(monkeypatch: pytest.MonkeyPatch) -> list[ThreadRules]:
    """Discord's thread rules, for the threads a test adds to the list."""
    active: list[ThreadRules] = []
    real = router.dispatch

    def dispatch(backend: Any, method: str, path: str, **kwargs: Any) -> Any:
        for rule in active:
            answer = rule.answer(method, path, kwargs.get("json"), kwargs.get("reason"))
            if answer is not None:
                return answer
        return real(backend, method, path, **kwargs)

    monkeypatch.setattr(router, "dispatch", dispatch)
    return active


def _paused(table: Harness, game_id: int) -> bool:
    session = table.bot.games.manager.get(game_id)
    return session is None or session.paused


async def game_in_a_thread(
    table: Harness, rules: list[ThreadRules]
) -> tuple[ThreadRules, int, Driver]:
    """A game of alice and bob in a public thread, under Discord's thread rules, played
    until a member has a decision to make: (the thread's rules, the game's id, the
    members' driver)."""
    alice, bob = table.members[:2]
    no_manage_threads(table)  # the invite link's permissions
    room = thread(table, alice, private=False)
    opened = await alice.slash(room, "newgame", players=5)
    lobby = next(m for m in room.history() if m.id == opened_lobby(opened).id)
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Start")
    game_id = table.bot.games.game_in(room.id)
    assert game_id is not None
    table.channel = room  # the members play where the game is
    rule = ThreadRules(table.env.backend, room.id)
    rules.append(rule)
    driver = Driver(table, [alice, bob], seed=5)
    await table.until(lambda: bool(driver.pending()), what="a prompt for a member")
    return rule, game_id, driver


async def archive_until_an_edit_meets_it(rule: ThreadRules, driver: Driver) -> None:
    """Archive the thread (Discord's idle timer) and play on until the bot has reopened
    it; archived again whenever a post of the bot's reopened it first (as Discord does)."""
    for _ in range(10):
        rule.set(archived=True)
        await driver.play(until=lambda: bool(rule.reopened) or not rule.metadata().archived)
        if rule.reopened:
            return
    raise AssertionError("no edit of the bot's met the archived thread")


def dms(member: simcord.MemberActor) -> list[str]:
    return [m.content for m in member.user.dm_channel.history()]


async def refusal_of_a_click(table: Harness, driver: Driver, game_id: int) -> str:
    """What a member is told who clicks while the game is paused: on a prompt still
    standing, if the pause came with one open, else on an earlier decision's button."""
    if pending := driver.pending():
        return await driver.act(*pending[0])
    old = table.channel_messages()[-1]
    alice = table.members[0]
    return told(await forge_click(table, alice, old, f"sh:v1:{game_id}:a0:0"))


async def test_an_archived_thread_is_reopened_and_a_locked_one_pauses_the_game(
    table: Harness, rules: list[ThreadRules], caplog: pytest.LogCaptureFixture
) -> None:
    """Archived (50083), then locked (160005) mid-game: the game is never lost, never
    silently frozen, and shows everything once it can."""
    caplog.set_level(logging.INFO)
    alice, bob = table.members[:2]
    rule, game_id, driver = await game_in_a_thread(table, rules)
    where = f"<#{rule.thread_id}>"

    # Discord archives the idle thread: the bot's next edit is refused, the bot reopens
    # the thread (naming the game in the audit log) and the edit goes through. The game
    # never pauses: the harness fails on the warning a pause logs.
    await archive_until_an_edit_meets_it(rule, driver)
    assert ("PATCH", delivery.ARCHIVED_THREAD) in rule.refused
    assert rule.reopened == [f"Secret Hitler game #{game_id} goes on in this thread"]
    assert not rule.metadata().archived
    assert (await stored(table, game_id)).status == "running"
    assert not [d for d in dms(alice) + dms(bob) if "paused" in d]

    # A moderator locks it: the bot may not post or edit there (160005), nor unlock it
    # (it has no Manage Threads, and would not override a moderator if it had).
    table.expect_warning("is locked")
    progress = len((await stored(table, game_id)).record.actions)
    rule.set(locked=True)
    await driver.play(until=lambda: _paused(table, game_id))
    assert delivery.THREAD_LOCKED in [code for _, code in rule.refused]
    reason = texts.THREAD_LOCKED_MIDGAME.format(where=where)
    game = await stored(table, game_id)
    assert game.status == "paused" and game.pause_reason == reason
    assert len(game.record.actions) >= progress  # nothing played is lost
    # The members hear it by DM (the thread cannot carry it); a click says it too.
    for human in (alice, bob):
        assert texts.GAME_BLOCKED.format(game=game_id, why=reason) in dms(human)
    reply = await refusal_of_a_click(table, driver, game_id)
    assert reply.startswith(PAUSED) and reason in reply, reply
    assert rule.metadata().locked and len(rule.reopened) == 1  # the lock stands

    # Unlocked: the thread update nudges the game, which goes on by itself and shows
    # what was held back.
    rule.set(locked=False)
    await table.until(lambda: not _paused(table, game_id), what="the game resumed")
    await driver.play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    assert missing_narration(table, game) == []

    # Nothing private reached the thread or an INFO log; no traceback was logged.
    secrets = hidden_lines(game)
    assert secrets
    shown = [text_of(m) for m in table.channel_messages()]
    reveal = next(i for i, t in enumerate(shown) if "The reveal" in t)
    for said in shown[:reveal]:
        assert not [s for s in secrets if s in said], said
    logged = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    assert not [s for s in secrets if s in logged]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


async def test_a_thread_closed_and_locked_waits_for_a_moderator_to_reopen_it(
    table: Harness, rules: list[ThreadRules]
) -> None:
    """Archived and locked at once ("Close and lock"): the bot tries to reopen it, is
    refused (only a moderator may), and the game pauses saying so until it is reopened."""
    alice, bob = table.members[:2]
    table.expect_warning("may not reopen it")
    rule, game_id, driver = await game_in_a_thread(table, rules)
    rule.set(archived=True, locked=True)
    await driver.play(until=lambda: _paused(table, game_id))
    assert ("PATCH", delivery.MISSING_PERMISSIONS) in rule.refused  # its try to reopen it
    reason = texts.THREAD_CLOSED.format(where=f"<#{rule.thread_id}>")
    game = await stored(table, game_id)
    assert game.status == "paused" and game.pause_reason == reason
    for human in (alice, bob):
        assert texts.GAME_BLOCKED.format(game=game_id, why=reason) in dms(human)

    # A moderator reopens it (the bot sees the thread come back: a thread join, since
    # discord.py forgets archived threads): the game goes on by itself to its end.
    rule.set(archived=False, locked=False)
    await table.until(lambda: not _paused(table, game_id), what="the game resumed")
    await driver.play(until=lambda: reveal_posted(table))
    game = await stored(table, game_id)
    assert game.status == "finished"
    assert missing_narration(table, game) == []
