"""What one game costs in Discord requests: posts, edits, DMs, every API call.

    python bench/discord_traffic.py --players 10 [--seed 1] [--pace 0] [--json]

Plays one complete game of `--players` members (no AI seat) through the offline simcord
harness (tests/bot/discord/harness.py): the real bot, discord.py's real dispatch, an
in-memory Discord. The members are scripted (tests/bot/discord/driver.py): each answers
the prompts that mention them, by clicking, with seeded choices; `--pace S` makes each
member wait S seconds before every answer (0: as fast as the simulated Discord settles,
which lets the bot coalesce vote-message edits more than real players would).

Every request the bot made is read from simcord's request log (`env.http_requests`,
method and path) and sorted out:

- posts: messages the bot created in the game's channel (POST .../messages there, and
  public interaction responses or followups);
- edits: edits of the channel's messages (PATCH .../messages/<id> there, and interaction
  responses that edit a public message: a deferred update then its edit, an update);
- dms: messages sent in direct-message channels (and `dm_opens`, DM channels opened);
- replies: ephemeral answers to the members (not in the channel);
- api_calls: every request, of any kind.

The game's figures run from the host's Start click to the end of the game (the reveal,
and whatever the bot sends after it); the lobby (/newgame and the Joins) is counted
apart under `lobby`. The targets: at most 25 posts (issue 22: the live board and the
announcements) and 60 edits (issue 18, item 11) for a 10-member game.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import discord  # noqa: E402
import simcord  # noqa: E402

from bot.agent_port import InProcessAgents  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.discord.games import DiscordGames  # noqa: E402
from bot.manager import SessionManager  # noqa: E402
from tests.bot.discord.driver import Driver, text_of  # noqa: E402
from tests.bot.discord.harness import Harness, harness  # noqa: E402

# Instant AI players, shown at once (as in tests/bot/discord/test_game_flow.py).
FAST = Config(ai_specs={"easy": "random", "normal": "random", "strong": "random"}, ai_pace=0.0)
MAX_POSTS = 25  # issue 22: the live board and the announcements of a 10-member game
MAX_EDITS = 60  # issue 18, item 11
EPHEMERAL = 64  # the message flag
DM_CHANNEL = 1  # the channel type
# Interaction callback types (Discord's numbering).
MESSAGE, DEFERRED, DEFERRED_UPDATE, UPDATE = 4, 5, 6, 7
FIGURES = ("posts", "edits", "dms", "dm_opens", "replies", "acks", "other")


@asynccontextmanager
async def open_table(tmp: Path, config: Config = FAST) -> AsyncIterator[Harness]:
    """The offline harness, its games on the real session manager with `config`.

    The harness fails a test on any warning or error the bot logs; a bench reports them
    instead (`problems`), so every warning and error is let through here."""
    async with harness(
        tmp, lambda: DiscordGames(config, agents=InProcessAgents()), config=config
    ) as table:
        table.expect_warning("")
        table.expect_error("")
        yield table


_NUMBERS = re.compile(r"\d+(\.\d+)?")


def problems(table: Harness) -> dict[str, int]:
    """The warnings and errors the bot logged, and the exceptions that reached
    discord.py's handlers, counted by message (numbers elided)."""
    seen: Counter[str] = Counter()
    for record in table.log.records:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__})"
        seen[_NUMBERS.sub("N", text)[:300]] += 1
    for error in table.env.errors:
        seen[_NUMBERS.sub("N", f"EXCEPTION {type(error).__name__}: {error}")[:300]] += 1
    return dict(seen.most_common())


@contextmanager
def seeded_deals(seed: int) -> Iterator[None]:
    """New games are dealt from `seed` (the bot draws a system-random seed otherwise),
    so that a run can be replayed."""
    rng = random.Random(seed)
    create = SessionManager.create

    async def seeded(self: SessionManager, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("seed") is None:
            kwargs["seed"] = rng.randrange(2**62)
        return await create(self, *args, **kwargs)

    SessionManager.create = seeded  # type: ignore[method-assign]
    try:
        yield
    finally:
        SessionManager.create = create  # type: ignore[method-assign]


async def open_lobby(table: Harness, members: Sequence[simcord.MemberActor], players: int) -> Any:
    """/newgame by the first member, Join by the others; returns the lobby message."""
    host, *others = members
    await host.slash(table.channel, "newgame", players=players)
    lobby = table.channel.last_message
    assert lobby is not None, "/newgame posted no lobby"
    for member in others:
        await member.click(lobby, label="Join")
    return lobby


def code_version() -> dict[str, Any]:
    """The commit measured, and whether bot/ differed from it (uncommitted changes)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "bot", "engine", "agents"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "uncommitted_changes": None}
    return {"commit": commit, "uncommitted_changes": bool(changed)}


def reveal_posted(table: Harness) -> bool:
    """Whether the game's reveal is in the channel."""
    return any("The reveal" in text_of(m) for m in table.channel_messages())


@dataclass
class Traffic:
    """Requests sorted by what they did (see the module docstring)."""

    counts: Counter[str] = field(default_factory=Counter)
    routes: Counter[str] = field(default_factory=Counter)
    post_kinds: Counter[str] = field(default_factory=Counter)  # channel posts by content
    edit_kinds: Counter[str] = field(default_factory=Counter)  # channel edits by content

    @property
    def api_calls(self) -> int:
        return sum(self.routes.values())

    def figures(self) -> dict[str, int]:
        return {name: self.counts[name] for name in FIGURES} | {"api_calls": self.api_calls}


_IDS = re.compile(r"/\d{5,}")
_TOKENS = re.compile(r"/(interactions|webhooks)/(\d+)/([^/]+)")


def route_of(path: str) -> str:
    """A path with its ids and tokens elided, to count requests by route."""
    return _IDS.sub("/{id}", _TOKENS.sub(r"/\1/{id}/{token}", path))


def _token(path: str) -> str | None:
    match = _TOKENS.search(path)
    return match.group(3) if match else None


def _flags(payload: Any) -> int:
    if not isinstance(payload, dict):
        return 0
    data = payload.get("data") if "type" in payload and "data" in payload else payload
    return int((data or {}).get("flags") or 0)


def classify(env: simcord.Env, channel_id: int, entries: Sequence[simcord.HttpLogEntry]) -> Traffic:
    """Sort `entries` of simcord's request log (see the module docstring)."""
    backend = env.backend
    traffic = Traffic()
    callbacks: dict[str, tuple[int, int]] = {}  # interaction token: (callback type, flags)
    for entry in entries:
        method, path = entry.method, entry.path
        traffic.routes[f"{method} {route_of(path)}"] += 1
        kind = "other"
        parts = path.strip("/").split("/")
        token = _token(path)
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            where = int(parts[1])
            channel = backend.channels.get(where)
            if method == "POST" and len(parts) == 3:
                if where == channel_id:
                    kind = "posts"
                    traffic.post_kinds[post_kind(entry.json)] += 1
                elif channel is not None and channel.type == DM_CHANNEL:
                    kind = "dms"
            elif method == "PATCH" and len(parts) == 4 and where == channel_id:
                kind = "edits"
                traffic.edit_kinds[edit_kind(entry.json)] += 1
        elif method == "POST" and path == "/users/@me/channels":
            kind = "dm_opens"
        elif parts[0] == "interactions" and token is not None and parts[-1] == "callback":
            payload = entry.json if isinstance(entry.json, dict) else {}
            callback, flags = int(payload.get("type", 0)), _flags(payload)
            callbacks[token] = (callback, flags)
            if callback == MESSAGE:
                kind = "replies" if flags & EPHEMERAL else "posts"
            elif callback == DEFERRED:
                kind = "acks" if flags & EPHEMERAL else "posts"
            elif callback == DEFERRED_UPDATE:
                kind = "acks"
            elif callback == UPDATE:
                kind = "edits" if _public_source(env, token, channel_id) else "replies"
        elif parts[0] == "webhooks" and token is not None:
            callback, flags = callbacks.get(token, (0, 0))
            if method == "POST" and len(parts) == 3:  # a followup
                kind = "replies" if _flags(entry.json) & EPHEMERAL else "posts"
            elif method == "PATCH" and parts[-1] == "@original":
                if callback in (DEFERRED_UPDATE, UPDATE):
                    kind = "edits" if _public_source(env, token, channel_id) else "replies"
                elif callback == DEFERRED and not flags & EPHEMERAL:
                    kind = "edits"  # the public "thinking..." message filled in
                else:
                    kind = "replies"
            elif method == "PATCH":  # a followup edited
                kind = "replies" if _ephemeral_message(env, channel_id, parts[-1]) else "edits"
        traffic.counts[kind] += 1
    return traffic


def payload_parts(payload: Any) -> list[dict[str, Any]]:
    """Every component of a message payload, depth first (rows, buttons, selects, and a
    Components V2 layout's containers and text displays)."""
    out: list[dict[str, Any]] = []

    def walk(items: Any) -> None:
        for item in items or []:
            if isinstance(item, dict):
                out.append(item)
                walk(item.get("components"))

    walk(payload.get("components") if isinstance(payload, dict) else None)
    return out


def _labels(payload: Any) -> list[str]:
    return [c.get("label") or "" for c in payload_parts(payload) if c.get("type") == 2]


def payload_text(payload: Any) -> str:
    """A payload's text: its content, or its layout's text displays."""
    content = payload.get("content") or "" if isinstance(payload, dict) else ""
    shown = [str(c.get("content") or "") for c in payload_parts(payload) if c.get("type") == 10]
    return "\n".join([content, *shown])


def _has_select(payload: Any) -> bool:
    return any(c.get("type") == 3 for c in payload_parts(payload))


def post_kind(payload: Any) -> str:
    """What a channel post was: a live board (opened by a vote, a prompt or the
    narration), the reveal, or a notice."""
    labels = _labels(payload)
    text = payload_text(payload)
    embeds = payload.get("embeds") or [] if isinstance(payload, dict) else []
    if "Ja" in labels:
        return "live board: vote"
    if any(not label.startswith("Show") for label in labels) or _has_select(payload):
        return "live board: prompt"
    if any(e.get("title") == "The reveal" for e in embeds):
        return "reveal"
    if "the bot restarted" in text.lower():
        return "restart notice"
    if "**Election" in text:
        return "live board: narration"
    return "notice"


def edit_kind(payload: Any) -> str:
    """What a channel edit did: a vote's progress or result, the live board's progress,
    a past round edited down to its story."""
    text = payload_text(payload)
    if "**Election" not in text:  # no status line: no longer the live board
        return "round told"
    if "**Vote closed.**" in text:  # (narration may lead the vote message)
        return "vote closed"
    if "**Vote**" in text:
        return "vote progress"
    return "live board"


def _public_source(env: simcord.Env, token: str, channel_id: int) -> bool:
    """Whether the message an interaction came from is a public message of the channel."""
    backend = env.backend
    interaction_id = backend.interaction_tokens.get(token)
    record = backend.interactions.get(interaction_id) if interaction_id is not None else None
    if record is None or record.source_message_id is None:
        return False
    message = backend.messages.get(channel_id, {}).get(record.source_message_id)
    return message is not None and not message.is_ephemeral


def _ephemeral_message(env: simcord.Env, channel_id: int, message_id: str) -> bool:
    if not message_id.isdigit():
        return True
    message = env.backend.messages.get(channel_id, {}).get(int(message_id))
    return message is None or message.is_ephemeral


class PacedDriver(Driver):
    """The test driver, with members who take `pace` seconds before each answer."""

    pace: float = 0.0

    async def act(self, message: discord.Message, member: simcord.MemberActor) -> str:
        if self.pace:
            await asyncio.sleep(self.pace)
        return await super().act(message, member)


async def play(players: int, seed: int, pace: float = 0.0) -> dict[str, Any]:
    """One complete game of `players` members; returns the figures (see `main`)."""
    with tempfile.TemporaryDirectory() as tmp, seeded_deals(seed):
        async with open_table(Path(tmp)) as table:
            members = table.members[:players]
            ready = len(table.env.http_requests)  # the bot's own start is not counted
            lobby = await open_lobby(table, members, players)
            mark = len(table.env.http_requests)
            started = time.monotonic()
            await members[0].click(lobby, label="Start")
            game_id = table.bot.games.game_in(table.channel.id)
            assert game_id is not None, "Start did not start a game"
            driver = PacedDriver(table, list(members), seed=seed)
            driver.pace = pace
            actions = await driver.play(until=lambda: reveal_posted(table), limit=2000)
            # Whatever the bot sends after the reveal counts too: wait for the session
            # to end (and a moment for anything queued behind it).
            await table.until(
                lambda: table.bot.games.manager.get(game_id) is None, what="the session's end"
            )
            await asyncio.sleep(0.2)
            seconds = time.monotonic() - started
            log = list(table.env.http_requests)
            game = classify(table.env, table.channel.id, log[mark:])
            lobby_traffic = classify(table.env, table.channel.id, log[ready:mark])
            stored = await table.storage.load_game(game_id)
            logged = problems(table)
    figures = game.figures()
    return {
        "players": players,
        "seed": seed,
        "pace": pace,
        "status": stored.status,
        "winner": getattr(stored.winner, "value", stored.winner),
        "stored_actions": len(stored.record.actions),
        "actions": actions,
        "hands_opened": driver.hands_opened,
        "seconds": round(seconds, 2),
        **figures,
        "target": {"posts": MAX_POSTS, "edits": MAX_EDITS},
        "meets_target": figures["posts"] <= MAX_POSTS and figures["edits"] <= MAX_EDITS,
        "lobby": lobby_traffic.figures(),
        "post_kinds": dict(game.post_kinds.most_common()),
        "edit_kinds": dict(game.edit_kinds.most_common()),
        "routes": dict(sorted(game.routes.items())),
        "problems": logged,
        "code": code_version(),
    }


def summary(figures: dict[str, Any]) -> str:
    """The readable form of the figures."""
    target = "meets" if figures["meets_target"] else "misses"
    lines = [
        f"{figures['players']} members, seed {figures['seed']}, pace {figures['pace']} s: "
        f"game {figures['status']} ({figures['winner']}) after {figures['actions']} member "
        f"actions in {figures['seconds']} s",
        f"  posts {figures['posts']}, edits {figures['edits']}, DMs {figures['dms']} "
        f"(+{figures['dm_opens']} DM channels opened), ephemeral replies {figures['replies']}, "
        f"acknowledgements {figures['acks']}, other {figures['other']}",
        "  posts: " + ", ".join(f"{k} {v}" for k, v in figures["post_kinds"].items()),
        "  edits: " + ", ".join(f"{k} {v}" for k, v in figures["edit_kinds"].items()),
        f"  API calls {figures['api_calls']}; {target} the target of at most {MAX_POSTS}"
        f" posts and {MAX_EDITS} edits",
        "  lobby (/newgame and the Joins): "
        + ", ".join(f"{k} {v}" for k, v in figures["lobby"].items() if v),
        f"  the bot logged {sum(figures['problems'].values())} warnings or errors",
        *(f"    {n:5d}  {text}" for text, n in figures["problems"].items()),
        "  by route:",
        *(f"    {n:5d}  {route}" for route, n in figures["routes"].items()),
    ]
    return "\n".join(lines)


def _players(text: str) -> int:
    value = int(text)
    if not 5 <= value <= 10:
        raise argparse.ArgumentTypeError("a game has 5 to 10 players")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=_players, default=10, help="members (5-10)")
    parser.add_argument("--seed", type=int, default=1, help="deal and choices")
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds each member takes before an answer"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = asyncio.run(play(args.players, args.seed, args.pace))
    print(json.dumps(figures, indent=2) if args.json else summary(figures))
    return 0 if figures["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
