"""The port between `Storage` and a database: transactions that run SQL, and the few
things each database does its own way (faults, backups, shard claims).

`Storage` writes its SQL once, with `?` placeholders (and `:name` ones where a value is
used twice); a driver runs it as its database wants. A write transaction is serialised
against every other write to the same rows (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: the
row locks that `Tx.lock` adds to the reads a write decides on), and commits durably
before its context exits; a read transaction sees one snapshot.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from .records import GameScope

Params = Sequence[Any] | Mapping[str, Any]


class Tx(Protocol):
    """One transaction on a driver's connection."""

    # Appended to a SELECT of rows the write then changes: locks them until the commit
    # where the database does not serialise every write anyway.
    lock: str

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        """Run one statement; its rows (each indexable by position and column name)."""
        ...

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        ...


class ShardLease(Protocol):
    """A process's hold on its shards of a shared database, released once."""

    def release(self) -> None:
        """Give the shards up (idempotent)."""
        ...


class Driver(ABC):
    """A database connection `Storage` runs its transactions on."""

    # SQL that reads the AI fallback count out of `games.session_state` (JSON text that
    # may be damaged: a damaged one counts as nothing).
    fallbacks: str

    @property
    @abstractmethod
    def name(self) -> str:
        """The database as messages name it: a file, or a URL without its password."""

    @abstractmethod
    def write(self) -> AbstractAsyncContextManager[Tx]:
        """One write transaction: committed (durably) when the block exits, rolled back
        if it raises. Database faults come out as `StorageError` subclasses."""

    @abstractmethod
    def read(self) -> AbstractAsyncContextManager[Tx]:
        """One read transaction: a single snapshot across its statements."""

    @abstractmethod
    async def close(self) -> None:
        """Close once the transactions in flight are over (idempotent)."""

    @abstractmethod
    async def backup(self, path: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the database to `path`."""

    @abstractmethod
    async def claim(self, scope: GameScope) -> ShardLease | None:
        """Claim `scope`'s shards against the bot's other processes, or raise
        `ShardConflict`; None when the claim is not the database's to make (a file
        database is claimed with file locks beside it, by `bot.manager.ShardClaim`)."""
