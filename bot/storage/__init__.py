"""Persistence for games: an append-only action log, seats, settings and stats.

`Storage` (store.py) is the one interface the bot uses; it runs its SQL on a driver:
SQLite (sqlite.py, the embedded default, `DATABASE_PATH`) or PostgreSQL (postgres.py,
`DATABASE_URL=postgresql://...`, for shard processes on many hosts; the `[postgres]`
extra). records.py holds what both return and raise; the SQLite schema's history is
`bot.migrations`, PostgreSQL's is pg_schema.py.
"""

from __future__ import annotations

from .driver import Driver, ShardLease
from .records import (
    STATUSES,
    CannotOpen,
    ConnectionLost,
    DamagedDatabase,
    DatabaseBusy,
    DiskError,
    DiskFull,
    GameDamaged,
    GameScope,
    GameSummary,
    LeaderboardRow,
    NewerDatabase,
    NotShbotDatabase,
    PermissionDenied,
    PlayerStats,
    ReadOnlyDatabase,
    SeatChange,
    SeatRecord,
    ShardsLost,
    ShownMessage,
    StorageError,
    StoredGame,
)
from .store import BUSY_TIMEOUT_MS, Storage, is_database_url

__all__ = [
    "BUSY_TIMEOUT_MS",
    "STATUSES",
    "CannotOpen",
    "ConnectionLost",
    "DamagedDatabase",
    "DatabaseBusy",
    "DiskError",
    "DiskFull",
    "Driver",
    "GameDamaged",
    "GameScope",
    "GameSummary",
    "LeaderboardRow",
    "NewerDatabase",
    "NotShbotDatabase",
    "PermissionDenied",
    "PlayerStats",
    "ReadOnlyDatabase",
    "SeatChange",
    "SeatRecord",
    "ShardLease",
    "ShardsLost",
    "ShownMessage",
    "Storage",
    "StorageError",
    "StoredGame",
    "is_database_url",
]
