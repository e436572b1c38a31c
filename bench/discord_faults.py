"""A fault soak: whole games while the simulated Discord fails a share of the requests.

    python bench/discord_faults.py --games 50 [--fail-rate 0.05] [--restart-share 0.5]
        [--seed 1] [--timeout 120] [--json]

Each game runs in a fresh offline harness (tests/bot/discord/harness.py: the real bot,
discord.py's real dispatch, an in-memory Discord): 5 to 7 seats, some of them members
who play by clicking what mentions them (as tests/bot/discord/driver.py does, with
seeded choices), the others instant AI seats (`random`). From the host's Start on, every
request the bot makes through its HTTP client to a channel (posts, edits, DMs, opening a
DM) fails with probability `--fail-rate`, one of:

- `5xx`: an HTTP 500, 502, 503 or 504 before Discord did anything;
- `429`: a rate limit whose response carries a Retry-After header (0.01-0.2 s here);
- `network`: the connection fails before the request reached Discord (aiohttp's
  ClientConnectionError, or a timeout);
- `lost_response`: Discord did the request, then the connection dropped before the
  answer came back (aiohttp's ServerDisconnectedError). As Discord does, a message sent
  again with the same nonce and `enforce_nonce` is not created twice: the first one is
  returned (simcord does not model nonces, so this script does).

In a share `--restart-share` of the games the bot is restarted (`Harness.restart`: the
same database and simulated Discord, a fresh bot) a moment (0-0.3 s) after the game
has stored 1 to 20 actions (drawn). Interaction responses (the answers to clicks) are
not failed: the members' side is reliable here, the bot's own requests are not.
Retries back off from 0.01 s instead of 1 s (`bot.discord.delivery.FIRST_BACKOFF_S`)
so the soak runs fast.

A member who sees nothing to do for a while looks again at every open message that
mentions them (as a player would scroll up), and after a restart everyone does.

Printed, over all games:

- finished: games stored "finished" whose reveal was posted in the channel;
- lost_actions: member clicks answered as accepted ("Done: ...", "Your vote is in")
  that the stored record lacks (`lost_clicks`), plus public narration lines of the
  stored game (as `bot.narrate.narrate` words them) that the channel never showed
  (`lost_narration`);
- duplicate_prompts: channel messages open (with components) at the same time as an
  older one for the same seat and decision kind (an action or a claim), or as another
  open vote message (`stale_prompts`: the older ones, left open);
- stuck: games not finished within `--timeout` seconds;

and, to say why: `open_after_end` (messages still asking something after the reveal),
`repeated_lines` (narration shown more often than it happened), `sent_twice` (messages
Discord created twice: sent again after a lost answer under a new nonce),
`retried_before_retry_after`, the failures injected by kind, and the bot's logged
warnings and errors other than its retry notices (`problems`). `--dump DIR` writes
simcord's transcript of every game with a finding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for _path in (ROOT, BENCH):  # run from a checkout without installing; discord_traffic
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import aiohttp  # noqa: E402
import discord  # noqa: E402
import simcord  # noqa: E402
from discord_traffic import (  # noqa: E402
    DM_CHANNEL,
    code_version,
    open_lobby,
    open_table,
    payload_parts,
    payload_text,
    problems,
    reveal_posted,
    seeded_deals,
)
from simcord.http import client as simcord_client  # noqa: E402

from bot.discord import delivery, texts  # noqa: E402
from bot.narrate import narrate  # noqa: E402
from bot.storage import StoredGame  # noqa: E402
from engine import Vote  # noqa: E402
from tests.bot.discord.driver import (  # noqa: E402
    components,
    decision_of,
    game_progress,
    text_of,
    undecided,
)
from tests.bot.discord.harness import Harness, text  # noqa: E402

KINDS = {"5xx": 0.35, "429": 0.25, "network": 0.25, "lost_response": 0.15}
RETRY_AFTER_S = (0.01, 0.2)
LOOK_AGAIN_S = 2.0  # a member with nothing to do looks again at what mentions them
SAMPLE_S = 0.005  # how often the channel is searched for duplicate prompts
# What the bot logs about the faults this script injects (not counted as problems).
EXPECTED = ("failed (Discord error", "failed (rate limited", "failed (network error")


class _Response:
    """Enough of an aiohttp response for discord.HTTPException."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = "Too Many Requests" if status == 429 else "Server Error"
        self.headers = headers or {}


@dataclass
class Faults:
    """Fails a share of the bot's channel and DM requests (see the module docstring)."""

    rate: float
    rng: random.Random
    armed: bool = False
    injected: Counter[str] = field(default_factory=Counter)
    requests: int = 0  # requests that could have failed
    deduplicated: int = 0  # messages sent again with a nonce Discord already had
    duplicated: Counter[str] = field(default_factory=Counter)  # re-sent under a new nonce
    _sent: dict[tuple[str, str], Any] = field(default_factory=dict)
    early: int = 0  # a request retried before the Retry-After of its 429 had passed
    _limited: dict[tuple[str, str, str], float] = field(default_factory=dict)  # until when
    # The content of a message Discord created but whose answer was lost, by path.
    _lost: dict[str, str] = field(default_factory=dict)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Route every simcord HTTP request through `request` (class-wide: restarted
        bots get a fresh client)."""
        original = simcord_client.FakeHTTPClient.request
        faults = self

        async def request(client: Any, route: Any, **kwargs: Any) -> Any:
            return await faults.request(original, client, route, **kwargs)

        simcord_client.FakeHTTPClient.request = request  # type: ignore[method-assign]
        try:
            yield
        finally:
            simcord_client.FakeHTTPClient.request = original  # type: ignore[method-assign]

    async def request(
        self, original: Callable[..., Any], client: Any, route: Any, **kw: Any
    ) -> Any:
        path = simcord_client._path_of(route.url)
        method = route.method
        nonce = _nonce(path, method, kw)
        if nonce is not None and nonce in self._sent:
            self.deduplicated += 1  # Discord returns the message it already has
            return self._sent[nonce]
        # The same message again after a lost answer, under another nonce (or none):
        # Discord creates it a second time. (The same nonce returned above.)
        if method == "POST" and path in self._lost and self._lost.pop(path) == _content(kw):
            self.duplicated["dm" if _is_dm(client, path) else "channel"] += 1
        same = (method, path, _content(kw))
        until = self._limited.pop(same, None)
        if until is not None and time.monotonic() < until:
            self.early += 1
        eligible = self.armed and (path.startswith("/channels/") or path == "/users/@me/channels")
        kind = None
        if eligible:
            self.requests += 1
            if self.rng.random() < self.rate:
                kind = self.rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
                self.injected[kind] += 1
        if kind == "5xx":
            status = self.rng.choice((500, 502, 503, 504))
            raise discord.HTTPException(
                _Response(status),  # type: ignore[arg-type]
                {"message": "Server Error (injected)", "code": 0},
            )
        if kind == "429":
            wait = round(self.rng.uniform(*RETRY_AFTER_S), 3)
            self._limited[same] = time.monotonic() + wait
            raise discord.HTTPException(
                _Response(429, {"Retry-After": str(wait)}),  # type: ignore[arg-type]
                {"message": "You are being rate limited.", "retry_after": wait, "code": 0},
            )
        if kind == "network":
            if self.rng.random() < 0.5:
                raise aiohttp.ClientConnectionError("Connection reset by peer (injected)")
            raise TimeoutError("injected")
        result = await original(client, route, **kw)
        if nonce is not None:
            self._sent[nonce] = result
        if kind == "lost_response":
            if method == "POST" and path.endswith("/messages"):
                self._lost[path] = _content(kw)
            raise aiohttp.ServerDisconnectedError("Server disconnected (injected)")
        return result


def _payload(kw: dict[str, Any]) -> Any:
    """The JSON body of a request (multipart ones carry it as `payload_json`)."""
    payload = kw.get("json")
    for part in kw.get("form") or ():
        if part.get("name") == "payload_json":
            payload = json.loads(part["value"])
    return payload


def _content(kw: dict[str, Any]) -> str:
    """A message's body without its nonce, to compare two sends."""
    payload = _payload(kw)
    if isinstance(payload, dict):
        payload = {k: v for k, v in payload.items() if k not in ("nonce", "enforce_nonce")}
    return json.dumps(payload, sort_keys=True, default=str)


def _is_dm(client: Any, path: str) -> bool:
    channel = client.backend.channels.get(int(path.split("/")[2]))
    return channel is not None and channel.type == DM_CHANNEL


def _nonce(path: str, method: str, kw: dict[str, Any]) -> tuple[str, str] | None:
    """(channel path, nonce) of a message sent with `enforce_nonce`, else None."""
    if method != "POST" or not path.endswith("/messages"):
        return None
    payload = _payload(kw)
    if not isinstance(payload, dict) or not payload.get("enforce_nonce"):
        return None
    nonce = payload.get("nonce")
    return (path, str(nonce)) if nonce is not None else None


@dataclass
class DuplicateWatch:
    """Searches the channel, every few milliseconds, for two open prompts of one kind."""

    table: Harness
    extra: set[int] = field(default_factory=set)  # opened while an older one was open
    stale: set[int] = field(default_factory=set)  # left open when a newer one opened
    examples: list[str] = field(default_factory=list)
    samples: int = 0

    def keys(self) -> dict[tuple[Any, ...], list[int]]:
        """Open prompt messages by (member, kind), and open vote messages."""
        backend = self.table.env.backend
        found: dict[tuple[Any, ...], list[int]] = {}
        for message in list(backend.messages.get(self.table.channel.id, {}).values()):
            if message.is_ephemeral or not message.components:
                continue
            parts = [
                c
                for c in payload_parts({"components": message.components})
                if c.get("type") in (2, 3)
            ]
            labels = [c.get("label") or "" for c in parts]
            if "Ja" in labels:
                found.setdefault(("vote",), []).append(message.id)
                continue
            asks = [c for c in parts if not (c.get("label") or "").startswith("Show")]
            asks = [c for c in asks if c.get("label") != texts.BUTTON_END_GAME]
            if not asks:
                continue
            claim = any(c.get("placeholder") == texts.PICK_CLAIM for c in asks)
            for user_id in message.mention_user_ids:
                key = (user_id, "claim" if claim else "action")
                found.setdefault(key, []).append(message.id)
        return found

    def sample(self) -> None:
        self.samples += 1
        for key, ids in self.keys().items():
            if len(ids) > 1:
                later = sorted(ids)[1:]
                new = [i for i in later if i not in self.extra]
                self.extra.update(new)
                self.stale.update(sorted(ids)[:-1])
                if new and len(self.examples) < 5:
                    stored = self.table.env.backend.messages[self.table.channel.id]
                    contents = [
                        payload_text(
                            {"content": stored[i].content, "components": stored[i].components}
                        )
                        for i in sorted(ids)
                    ]
                    self.examples.append(
                        f"{key[1:] or key}: " + " | ".join(c[:80] for c in contents)
                    )

    async def run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(SAMPLE_S)


@dataclass
class Members:
    """Members who click what mentions them, with seeded choices, and notice what they
    were told: every accepted choice is kept to be checked against the stored game."""

    table: Harness
    humans: list[simcord.MemberActor]
    rng: random.Random
    done: set[tuple[int, str]] = field(default_factory=set)  # (member id, decision)
    # Members whose hand was not ready, and how far the game was then: they look again
    # once it moved (the President discarded; an AI President moves nothing on screen).
    parked: dict[int, int] = field(default_factory=dict)
    accepted: Counter[tuple[int, str]] = field(default_factory=Counter)  # (member, kind)
    silent: int = 0  # "say nothing" to a claim: not an action, not stored as one
    refused: Counter[str] = field(default_factory=Counter)
    click_errors: Counter[str] = field(default_factory=Counter)
    actions: int = 0

    def pending(self) -> list[tuple[discord.Message, simcord.MemberActor]]:
        out = []
        for message in self.table.channel_messages():
            parts = components(message)
            if not parts:
                continue
            labels = [c.get("label") for c in parts]
            for member in self.humans:
                if not self.mine(message, member):
                    continue
                if "Ja" in labels and not _waited_for(text(message), member.name):
                    continue
                out.append((message, member))
        return out

    def mine(self, message: discord.Message, member: simcord.MemberActor) -> list[dict[str, Any]]:
        """The components of `message` for a decision of `member` not yet answered."""
        return undecided(self.table, message, member, self.done, self.parked)

    def look_again(self) -> None:
        """Forget what was answered: every open message is read again."""
        self.done.clear()

    async def act(self, message: discord.Message, member: simcord.MemberActor) -> None:
        self.actions += 1
        parts = self.mine(message, member) or components(message)
        owner = decision_of(parts[0])
        decision = owner[0] if owner is not None else ""
        parts = [p for p in parts if (o := decision_of(p)) is not None and o[0] == decision]
        self.done.add((member.id, decision))
        select = next((c for c in parts if c.get("type") == 3), None)
        labels = [c.get("label") for c in parts if c.get("type") == 2]
        try:
            if select is not None:
                value = self.rng.choice([o["value"] for o in select["options"]])
                result = await member.select(message, [value], custom_id=select["custom_id"])
            elif texts.BUTTON_HAND in labels:
                opened = await member.click(message, label=texts.BUTTON_HAND)
                hand = opened.response
                choices = [c["label"] for c in components(hand)] if hand is not None else []
                if not choices:
                    self.refused[_reply(opened)[:60]] += 1
                    if _reply(opened) == texts.HAND_NOT_YET:  # again once the President discarded
                        self.done.discard((member.id, decision))
                        self.parked[member.id] = game_progress(self.table)
                    return
                result = await member.click(hand, label=self.rng.choice(choices))
            else:
                choices = [label for label in labels if label and not label.startswith("Show")]
                if not choices:
                    return
                result = await member.click(message, label=self.rng.choice(choices))
        except Exception as exc:  # a click the simulated Discord could not complete
            self.click_errors[type(exc).__name__] += 1
            return
        reply = _reply(result)
        if reply.startswith("Done: "):
            self.accepted[(member.id, "other")] += 1
        elif reply.startswith("Your vote is in: **Ja**"):
            self.accepted[(member.id, "ja")] += 1
        elif reply.startswith("Your vote is in: **Nein**"):
            self.accepted[(member.id, "nein")] += 1
        elif reply == texts.CLAIM_SILENT:
            self.silent += 1
        else:
            self.refused[reply[:60]] += 1


def _waited_for(content: str, name: str) -> bool:
    """Whether a vote message still waits for `name` (no "Waiting for" line: yes)."""
    lines = [line for line in content.splitlines() if line.startswith("Waiting for: ")]
    if not lines:
        return True
    waiting = lines[-1].removeprefix("Waiting for: ").split(" Time runs out")[0]
    return name in [n.strip().rstrip(".") for n in waiting.split(",")]


def _reply(result: simcord.InteractionResult) -> str:
    """The text a member saw in answer to a click (deferred answers are edited in)."""
    response = result.response
    if response is not None and response.ephemeral:
        return response.content
    for followup in result.followups:
        return followup.content
    return response.content if response is not None else ""


def lost_actions(members: Members, game: StoredGame) -> int:
    """Accepted member choices the stored record lacks (by seat: ballots, other actions)."""
    seat_of = {s.user_id: s.seat for s in game.seats if s.user_id is not None}
    stored: Counter[tuple[int, str]] = Counter()
    for action in game.record.actions:
        if isinstance(action, Vote):
            stored[(action.seat, "ja" if action.ja else "nein")] += 1
        else:
            stored[(action.seat, "other")] += 1
    lost = 0
    for (member_id, kind), count in members.accepted.items():
        seat = seat_of.get(member_id)
        have = stored[(seat, kind)] if seat is not None else 0
        lost += max(0, count - have)
    return lost


def missing_narration(table: Harness, game: StoredGame) -> list[str]:
    """Public narration of the stored game that the channel never showed."""
    replayed = game.record.replay()
    labels = [f"{s.name} (seat {s.seat})" for s in game.seats]
    shown = "\n".join(text_of(m) for m in table.channel_messages())
    lines = [narrate(e, labels) for e in replayed.events if e.audience is None]
    return [line for line in lines if line and line not in shown]


def repeated_lines(table: Harness, game: StoredGame) -> list[str]:
    """Public narration lines the channel shows more often than the stored game has
    them (a line announced twice)."""
    replayed = game.record.replay()
    labels = [f"{s.name} (seat {s.seat})" for s in game.seats]
    wanted = Counter(narrate(e, labels) for e in replayed.events if e.audience is None)
    texts_shown = [  # the reveal says again how the game ended
        text_of(m)
        for m in table.channel_messages()
        if not any(e.title == "The reveal" for e in m.embeds)
    ]
    extra = []
    for line, count in wanted.items():
        if line:
            extra += [line] * max(0, sum(t.count(line) for t in texts_shown) - count)
    return extra


def open_after_end(table: Harness) -> int:
    """Channel messages still asking something (components other than "Show ...")."""
    count = 0
    for message in table.channel_messages():
        asks = [c for c in components(message) if not (c.get("label") or "").startswith("Show")]
        count += bool(asks)
    return count


@dataclass
class Plan:
    """One game of the soak: its table and when (if ever) the bot restarts."""

    index: int
    players: int
    humans: int
    restart_after: int | None  # stored actions (members' and AI's) before the restart
    restart_delay: float

    @classmethod
    def draw(cls, index: int, rng: random.Random, restart_share: float) -> Plan:
        players = rng.randint(5, 7)
        humans = rng.randint(1, players)
        restart = rng.random() < restart_share
        return cls(
            index,
            players,
            humans,
            rng.randint(1, 20) if restart else None,
            round(rng.uniform(0.0, 0.3), 3),
        )


async def play_game(
    plan: Plan, faults: Faults, seed: int, timeout: float, dump: Path | None = None
) -> dict[str, Any]:
    """One game under faults; returns what it found."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"game": plan.index, "players": plan.players, "humans": plan.humans}
    with tempfile.TemporaryDirectory() as tmp:
        async with open_table(Path(tmp)) as table:
            humans = table.members[: plan.humans]
            lobby = await open_lobby(table, humans, plan.players)
            faults.armed = True
            started = time.monotonic()
            try:
                await humans[0].click(lobby, label="Start")
                game_id = table.bot.games.game_in(table.channel.id)
                assert game_id is not None, "Start did not start a game"
                out.update(await _drive(table, plan, game_id, rng, started + timeout))
            finally:
                faults.armed = False
            out["seconds"] = round(time.monotonic() - started, 2)
            logged = problems(table)
            if dump is not None and _anomalous(out):
                dump.mkdir(parents=True, exist_ok=True)
                (dump / f"game-{plan.index}.txt").write_text(_transcript(table))
    out["problems"] = {k: v for k, v in logged.items() if not any(e in k for e in EXPECTED)}
    out["retry_warnings"] = sum(v for k, v in logged.items() if any(e in k for e in EXPECTED))
    return out


def _stored(table: Harness, game_id: int) -> int:
    """How many actions the running game has (0 while it is not running)."""
    session = table.bot.games.manager.get(game_id)
    return len(session.game.actions) if session is not None else 0


def _anomalous(result: dict[str, Any]) -> bool:
    keys = (
        "lost_clicks",
        "lost_narration",
        "duplicate_prompts",
        "open_after_end",
        "repeated_lines",
    )
    return not result.get("finished") or any(result.get(k) for k in keys)


def _transcript(table: Harness) -> str:
    """simcord's transcript of the game, and the channel as it reads at the end."""
    channel = "\n\n".join(
        f"[{m.id}] {text_of(m)} {[c.get('label') for c in components(m)]}"
        for m in table.channel_messages()
    )
    return f"{table.env.transcript()}\n\n=== the channel at the end ===\n{channel}\n"


async def _drive(
    table: Harness, plan: Plan, game_id: int, rng: random.Random, deadline: float
) -> dict[str, Any]:
    members = Members(table, table.members[: plan.humans], rng)
    watch = DuplicateWatch(table)
    watcher = asyncio.create_task(watch.run())
    restarted = False
    stuck = False
    idle_since = time.monotonic()
    try:
        while not reveal_posted(table):
            if time.monotonic() > deadline:
                stuck = True
                break
            due = plan.restart_after is not None and _stored(table, game_id) >= plan.restart_after
            if due and not restarted:
                await asyncio.sleep(plan.restart_delay)
                await table.restart()
                restarted = True
                members.look_again()
                continue
            pending = members.pending()
            if pending:
                await members.act(*pending[0])
                idle_since = time.monotonic()
                continue
            if time.monotonic() - idle_since > LOOK_AGAIN_S:
                members.look_again()
                idle_since = time.monotonic()
            await asyncio.sleep(0.01)
        if not stuck:  # the session ends after the reveal: let it (and anything after it)
            end = time.monotonic() + 10
            while table.bot.games.manager.get(game_id) is not None and time.monotonic() < end:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            watch.sample()
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
    game = await table.storage.load_game(game_id)
    finished = not stuck and game.status == "finished" and reveal_posted(table)
    unseen = missing_narration(table, game)
    lost_clicks = lost_actions(members, game)
    repeated = repeated_lines(table, game)
    if stuck:
        # Stop the session here, so the harness's shutdown does not wait on it.
        await table.bot.games.stop()
    return {
        "status": game.status,
        "finished": finished,
        "stuck": stuck,
        "restarted": restarted,
        "member_actions": members.actions,
        "stored_actions": len(game.record.actions),
        "lost_clicks": lost_clicks,
        "lost_narration": len(unseen) if finished else 0,
        "lost_narration_examples": unseen[:3] if finished else [],
        "duplicate_prompts": len(watch.extra),
        "stale_prompts": len(watch.stale),
        "repeated_lines": len(repeated) if finished else 0,
        "repeated_examples": repeated[:3] if finished else [],
        "duplicate_examples": watch.examples,
        "open_after_end": open_after_end(table) if finished else 0,
        "silent_claims": members.silent,
        "refused": dict(members.refused),
        "click_errors": dict(members.click_errors),
    }


async def soak(
    games: int,
    fail_rate: float,
    restart_share: float,
    seed: int,
    timeout: float,
    dump: Path | None = None,
) -> dict[str, Any]:
    """Play `games` games under faults; returns the totals and every game's line."""
    delivery.FIRST_BACKOFF_S = 0.01  # retries come quickly: the soak runs fast
    rng = random.Random(seed)
    faults = Faults(fail_rate, random.Random(seed + 1))
    results = []
    started = time.monotonic()
    with faults.installed(), seeded_deals(seed):
        for index in range(games):
            plan = Plan.draw(index, rng, restart_share)
            results.append(await play_game(plan, faults, rng.randrange(2**32), timeout, dump))
    problem_lines: Counter[str] = Counter()
    for result in results:
        problem_lines.update(result["problems"])
    lost_clicks = sum(r.get("lost_clicks", 0) for r in results)
    lost_narration = sum(r.get("lost_narration", 0) for r in results)
    return {
        "games": games,
        "finished": sum(bool(r.get("finished")) for r in results),
        "lost_actions": lost_clicks + lost_narration,
        "duplicate_prompts": sum(r.get("duplicate_prompts", 0) for r in results),
        "stuck": sum(bool(r.get("stuck")) for r in results),
        "lost_clicks": lost_clicks,
        "lost_narration": lost_narration,
        "stale_prompts": sum(r.get("stale_prompts", 0) for r in results),
        "open_after_end": sum(r.get("open_after_end", 0) for r in results),
        "repeated_lines": sum(r.get("repeated_lines", 0) for r in results),
        "restarts": sum(bool(r.get("restarted")) for r in results),
        "fail_rate": fail_rate,
        "restart_share": restart_share,
        "seed": seed,
        "requests_exposed": faults.requests,
        "failures_injected": sum(faults.injected.values()),
        "failures_by_kind": dict(sorted(faults.injected.items())),
        "nonce_deduplicated": faults.deduplicated,
        "sent_twice": dict(sorted(faults.duplicated.items())),
        "retried_before_retry_after": faults.early,
        "retry_warnings": sum(r.get("retry_warnings", 0) for r in results),
        "member_actions": sum(r.get("member_actions", 0) for r in results),
        "statuses": dict(Counter(r.get("status", "?") for r in results)),
        "problems": dict(problem_lines.most_common()),
        "seconds": round(time.monotonic() - started, 1),
        "code": code_version(),
        "per_game": results,
    }


def summary(report: dict[str, Any]) -> str:
    """The readable form of the report."""
    lines = [
        f"{report['games']} games, fail rate {report['fail_rate']}, restart share "
        f"{report['restart_share']}, seed {report['seed']}: {report['seconds']} s",
        f"  finished {report['finished']}, stuck {report['stuck']}, lost actions "
        f"{report['lost_actions']} (clicks {report['lost_clicks']}, narration "
        f"{report['lost_narration']}), duplicate prompts {report['duplicate_prompts']}, "
        f"stale prompts {report['stale_prompts']}, open prompts after the end "
        f"{report['open_after_end']}, narration lines repeated {report['repeated_lines']}",
        f"  {report['failures_injected']} of {report['requests_exposed']} requests failed "
        f"{report['failures_by_kind']}; {report['nonce_deduplicated']} messages sent again "
        f"deduplicated by nonce; {report['retried_before_retry_after']} retried before "
        f"their Retry-After; created twice (new nonce) {report['sent_twice']}; "
        f"{report['restarts']} restarts; {report['member_actions']} "
        "member actions",
        f"  statuses {report['statuses']}",
        f"  the bot logged {sum(report['problems'].values())} other warnings or errors",
        *(f"    {n:5d}  {text}" for text, n in report["problems"].items()),
    ]
    for result in report["per_game"]:
        bad = [
            k
            for k in (
                "lost_clicks",
                "lost_narration",
                "duplicate_prompts",
                "stale_prompts",
                "open_after_end",
                "repeated_lines",
            )
            if result.get(k)
        ]
        if bad or not result.get("finished"):
            lines.append(
                f"  game {result['game']}: {result.get('status')}, "
                + ", ".join(f"{k} {result[k]}" for k in bad)
                + (" (stuck)" if result.get("stuck") else "")
            )
            examples = result.get("duplicate_examples", []) + result.get(
                "lost_narration_examples", []
            )
            for example in examples + result.get("repeated_examples", []):
                lines.append(f"      {example[:160]}")
    return "\n".join(lines)


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("a share lies between 0 and 1")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--fail-rate", type=_share, default=0.05, help="share of requests")
    parser.add_argument(
        "--restart-share", type=_share, default=0.5, help="share of games with a restart"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per game")
    parser.add_argument(
        "--dump", type=Path, help="write simcord's transcript of each faulty game here"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    report = asyncio.run(
        soak(args.games, args.fail_rate, args.restart_share, args.seed, args.timeout, args.dump)
    )
    print(json.dumps(report, indent=2) if args.json else summary(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
