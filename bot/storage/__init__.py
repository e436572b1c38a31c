"""Persistence for games: an append-only action log, seats, settings and stats.

`Storage` (store.py) is the one interface the bot uses, by concern: the append-only
game log (game_log.py), lists and stats (history.py), the rating ladder (ladder.py),
settings and opening (store.py).
Its SQL is written once and runs on a driver (driver.py): SQLite (sqlite.py, the
embedded default, `DATABASE_PATH`) or PostgreSQL (postgres.py,
`DATABASE_URL=postgresql://...`, for shard processes on many hosts; the `[postgres]`
extra). records.py holds what both return and raise. Schema and migrations: SQLite's in
`bot.migrations`, PostgreSQL's (the same version numbers) in pg_schema.py.
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
    GameEnded,
    GameScope,
    GameSummary,
    LeaderboardRow,
    NewerDatabase,
    NotShbotDatabase,
    PermissionDenied,
    PlayerStats,
    RatingRow,
    ReadOnlyDatabase,
    SeatChange,
    SeatRecord,
    SetAside,
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
    "GameEnded",
    "GameScope",
    "GameSummary",
    "LeaderboardRow",
    "NewerDatabase",
    "NotShbotDatabase",
    "PermissionDenied",
    "PlayerStats",
    "RatingRow",
    "ReadOnlyDatabase",
    "SeatChange",
    "SeatRecord",
    "ShardLease",
    "ShardsLost",
    "ShownMessage",
    "Storage",
    "StorageError",
    "SetAside",
    "StoredGame",
    "is_database_url",
]
