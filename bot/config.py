"""The bot's configuration: environment variables, with a `.env` file as a fallback.

`load_config()` finds `.env` from the working directory upwards (python-dotenv), then lets
the real environment override it, so `docker run --env-file` and a plain shell export
behave the same. Every variable is documented in `.env.example`. A bad value raises
`ConfigError` naming the variable, before anything connects to Discord.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values, find_dotenv

from agents.registry import AgentSpec

from .errors import BotError
from .storage import GameScope
from .storage.conflict import ShardConflict as ShardConflict  # re-exported for readers

# The lobby's "AI strength" choices, weakest first.
STRENGTHS = ("easy", "normal", "strong")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Where AI seats think: worker processes of this machine, or a Ray cluster ([scale]).
AI_BACKENDS = ("local", "ray")


class ConfigError(BotError, ValueError):
    """A configuration value is missing or malformed; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Timers:
    """Default per-phase time limits (seconds) a lobby starts with; a lobby may change them."""

    turn_seconds: int = 120  # nominate, discard, enact, veto reply, powers
    vote_seconds: int = 90  # every living player votes at once
    afk_after: int = 2  # consecutive expiries before an agent takes the seat for good


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the Discord bot needs to run. The token never appears in `repr`."""

    discord_token: str | None = field(default=None, repr=False)
    database_path: Path = Path("data/shbot.db")
    # DATABASE_URL (postgresql://...): one PostgreSQL database for shard processes on many
    # hosts; it wins over database_path. Not in `repr`: it may carry a password.
    database_url: str | None = field(default=None, repr=False)
    dev_guild_id: int | None = None  # sync commands to this guild only (instant)
    log_level: str = "INFO"
    ai_specs: Mapping[str, str] = field(
        default_factory=lambda: {
            "easy": "selfish",  # plays its own party's policies, otherwise at random
            "normal": "belief",  # exact Bayesian reasoning, fast
            "strong": "belief-ismcts:seconds=2",
        }
    )
    ai_default: str = "strong"  # seats filled and taken over play the strongest agent
    ai_seconds: float = 2.0  # thinking time per AI decision
    # Processes thinking for AI seats: the machine's cores but one (for the bot itself).
    ai_workers: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1))
    ai_pace: float = 1.5  # the least seconds before an AI's move is shown (a human pace)
    ai_backend: str = "local"  # "ray": decisions run on a Ray cluster (AI_WORKERS unused)
    ray_address: str | None = None  # that cluster; None: a Ray instance on this machine
    timers: Timers = field(default_factory=Timers)
    shard_count: int | None = None  # None: Discord recommends the count
    shard_ids: tuple[int, ...] | None = None  # this process's shards; None: all of them
    sync_commands: bool = True  # push the app commands to Discord at start
    dm_secrets: bool = True  # also DM players their private information (best effort)

    @property
    def game_scope(self) -> GameScope:
        """The stored games this process drives: every process of one bot shares one
        database (DATABASE_PATH), and each resumes the games of its own shards' guilds
        (however SHARD_COUNT was set when they started), never a game without a channel
        (the terminal's)."""
        if self.shard_ids is None:
            return GameScope(channel_required=True)
        return GameScope(
            channel_required=True,
            shard_count=self.shard_count,
            shard_ids=frozenset(self.shard_ids),
        )

    @property
    def database(self) -> str:
        """What `Storage.open` opens: the PostgreSQL URL if set, else the SQLite file."""
        return self.database_url or str(self.database_path)

    @property
    def log_level_number(self) -> int:
        """The `logging` level of `log_level`."""
        return logging.getLevelNamesMapping()[self.log_level]

    def ai_spec(self, strength: str) -> str:
        """The agent spec of a lobby's AI strength (raises `ConfigError` if unknown)."""
        try:
            return self.ai_specs[strength]
        except KeyError:
            raise ConfigError(
                f"Unknown AI strength {strength!r}; choose from {', '.join(STRENGTHS)}."
            ) from None


def load_config(
    environ: Mapping[str, str] | None = None, *, env_file: str | Path | None = None
) -> Config:
    """Read the configuration from `environ` (default `os.environ`) over a `.env` file.

    `env_file` defaults to the nearest `.env` from the working directory upwards; a
    missing file is fine. Values in `environ` win over the file's.
    """
    return config_from(settings(environ, env_file=env_file))


def settings(
    environ: Mapping[str, str] | None = None, *, env_file: str | Path | None = None
) -> dict[str, str]:
    """The variables of `environ` (default `os.environ`) over those of a `.env` file (by
    default the nearest from the working directory upwards; a missing file is fine)."""
    if env_file is None:
        env_file = find_dotenv(usecwd=True)
    values: dict[str, str] = {}
    if env_file and Path(env_file).is_file():
        try:
            read = dotenv_values(env_file)
        except UnicodeDecodeError as exc:  # e.g. UTF-16, as PowerShell 5.1 writes it
            raise ConfigError(
                f"{env_file} is not UTF-8 text ({exc.reason} at byte {exc.start}): save it"
                " as UTF-8."
            ) from exc
        except OSError as exc:
            raise ConfigError(f"{env_file} cannot be read: {exc.strerror or exc}.") from exc
        values.update({k: v for k, v in read.items() if v is not None})
    values.update(os.environ if environ is None else environ)
    return values


def config_from(values: Mapping[str, str]) -> Config:
    """Build a `Config` from variable values (blank values count as unset)."""
    get = _Reader(values)
    defaults = Config()
    ai_seconds = get.number("AI_SECONDS", 2.0)
    ai_specs = {
        "easy": get.spec("AI_EASY", defaults.ai_specs["easy"]),
        "normal": get.spec("AI_NORMAL", defaults.ai_specs["normal"]),
        "strong": get.spec("AI_STRONG", f"belief-ismcts:seconds={ai_seconds:g}"),
    }
    ai_default = get.text("AI_DEFAULT", defaults.ai_default).lower()
    if ai_default not in STRENGTHS:
        raise ConfigError(f"AI_DEFAULT must be one of {', '.join(STRENGTHS)}, not {ai_default!r}.")
    log_level = get.text("LOG_LEVEL", defaults.log_level).upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}.")
    timers = Timers(
        turn_seconds=get.integer("TURN_SECONDS", defaults.timers.turn_seconds, low=10),
        vote_seconds=get.integer("VOTE_SECONDS", defaults.timers.vote_seconds, low=10),
        afk_after=get.integer("AFK_AFTER", defaults.timers.afk_after, low=1),
    )
    shard_count = get.optional_integer("SHARD_COUNT", low=1)
    shard_ids = get.id_list("SHARD_IDS")
    if shard_ids is not None:
        if shard_count is None:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT (the total over every process).")
        bad = [s for s in shard_ids if s >= shard_count]
        if bad:
            raise ConfigError(f"SHARD_IDS {bad} are not below SHARD_COUNT={shard_count}.")
    ai_backend, ray_address = _ai_backend(get)
    return Config(
        discord_token=get.text("DISCORD_TOKEN", "") or None,
        database_path=Path(get.text("DATABASE_PATH", str(defaults.database_path))),
        database_url=_database_url(get),
        dev_guild_id=get.optional_integer("DEV_GUILD_ID", low=1),
        log_level=log_level,
        ai_specs=ai_specs,
        ai_default=ai_default,
        ai_seconds=ai_seconds,
        ai_workers=get.integer("AI_WORKERS", defaults.ai_workers, low=1),
        ai_pace=get.number("AI_PACE", defaults.ai_pace, zero=True),
        ai_backend=ai_backend,
        ray_address=ray_address,
        timers=timers,
        shard_count=shard_count,
        shard_ids=shard_ids,
        sync_commands=get.boolean("SYNC_COMMANDS", defaults.sync_commands),
        dm_secrets=get.boolean("DM_SECRETS", defaults.dm_secrets),
    )


def _ai_backend(get: _Reader) -> tuple[str, str | None]:
    """AI_BACKEND and RAY_ADDRESS, checked together (Ray is an optional extra)."""
    backend = get.text("AI_BACKEND", "local").lower()
    if backend not in AI_BACKENDS:
        raise ConfigError(f"AI_BACKEND must be one of {', '.join(AI_BACKENDS)}, not {backend!r}.")
    address = get.text("RAY_ADDRESS", "") or None
    if backend == "local" and address is not None:
        # Said out loud: the AI would otherwise quietly think on this machine alone.
        raise ConfigError("RAY_ADDRESS is set but AI_BACKEND is local; set AI_BACKEND=ray.")
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise ConfigError("AI_BACKEND=ray needs Ray: pip install 'secret-hitler-bot[scale]'.")
    return backend, address


def _database_url(get: _Reader) -> str | None:
    """DATABASE_URL: a PostgreSQL URL (the `[postgres]` extra), or unset for SQLite."""
    url = get.text("DATABASE_URL", "") or None
    if url is None:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        # Not echoed: a malformed URL may still carry a password.
        raise ConfigError(
            "DATABASE_URL must be a postgresql:// URL (postgresql://user:password@host:5432/"
            "database); for a SQLite file set DATABASE_PATH instead."
        )
    if importlib.util.find_spec("asyncpg") is None:
        raise ConfigError("DATABASE_URL needs asyncpg: pip install 'secret-hitler-bot[postgres]'.")
    return url


class _Reader:
    """Typed access to variable values, raising `ConfigError` that names the variable."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = values

    def text(self, name: str, default: str) -> str:
        value = self.values.get(name, "").strip()
        return value or default

    def integer(self, name: str, default: int, *, low: int) -> int:
        value = self.optional_integer(name, low=low)
        return default if value is None else value

    def optional_integer(self, name: str, *, low: int) -> int | None:
        raw = self.text(name, "")
        if not raw:
            return None
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a whole number, not {raw!r}.") from None
        if value < low:
            raise ConfigError(f"{name} must be at least {low}, not {value}.")
        return value

    def number(self, name: str, default: float, *, zero: bool = False) -> float:
        raw = self.text(name, "")
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a number, not {raw!r}.") from None
        if zero and not 0 <= value <= 60:
            raise ConfigError(f"{name} must lie between 0 and 60 seconds, not {raw}.")
        if not zero and not 0 < value < math.inf:
            raise ConfigError(f"{name} must be positive, not {raw}.")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        raw = self.text(name, "").lower()
        if not raw:
            return default
        if raw in ("1", "true", "yes", "on"):
            return True
        if raw in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{name} must be true or false, not {raw!r}.")

    def id_list(self, name: str) -> tuple[int, ...] | None:
        raw = self.text(name, "")
        if not raw:
            return None
        try:
            ids = tuple(int(part) for part in raw.split(",") if part.strip())
        except ValueError:
            raise ConfigError(f"{name} must be comma-separated numbers, not {raw!r}.") from None
        if not ids or any(i < 0 for i in ids) or len(set(ids)) != len(ids):
            raise ConfigError(f"{name} must list distinct shard numbers, not {raw!r}.")
        return ids

    def spec(self, name: str, default: str) -> str:
        raw = self.text(name, default)
        try:
            return str(AgentSpec.parse(raw))
        except ValueError as exc:
            raise ConfigError(f"{name}: {exc}") from None
