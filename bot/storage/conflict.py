"""The storage-level error for clashing shard claims, raised where the claim is made.

PostgreSQL's claim (advisory locks, postgres.py) and the file-lock claim of SQLite
(`bot.manager.ShardClaim`) raise the same class; `bot.config` re-exports it under the
same name, so the configuration's readers and the storage driver share one error
without the driver importing the configuration.
"""

from __future__ import annotations

from .records import StorageError


class ShardConflict(StorageError):
    """This process's shards clash with another running process of the same bot on the
    same database (a different SHARD_COUNT, a shard run twice, two processes that each run
    every shard): starting would drive one game from two processes. The message names
    the fix. A `StorageError`, so whatever reports storage faults reports this one."""
