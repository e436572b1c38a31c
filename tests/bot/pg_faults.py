"""Fault injection for the PostgreSQL tests: asyncpg caught between a session's end and
the socket's close."""

from __future__ import annotations

import weakref
from typing import Any

import pytest


def fail_next_begin(monkeypatch: pytest.MonkeyPatch, conn: Any) -> list[int]:
    """Make asyncpg connection `conn`, whose session the server has ended, look the way
    it does between reading the server's goodbye and the socket's close: `is_closed()`
    still False, and its next BEGIN failing with InternalClientError. Returns the count
    of BEGINs failed so (0 or 1); once one has failed, `conn` reads as it really is."""
    from asyncpg.connection import Connection
    from asyncpg.exceptions import InternalClientError
    from asyncpg.transaction import Transaction

    real_start, real_closed, failed = Transaction.start, Connection.is_closed, []
    # A weak reference: a closure that kept `conn` alive would run its __del__ (which
    # calls is_closed) while monkeypatch undoes this very patch.
    target = weakref.ref(conn)

    def is_closed(self: Connection) -> bool:
        return False if self is target() and not failed else bool(real_closed(self))

    async def start(self: Transaction) -> None:
        if self._connection is target() and not failed:
            failed.append(1)
            raise InternalClientError(
                "cannot switch to state 15; another operation (2) is in progress"
            )
        await real_start(self)

    monkeypatch.setattr(Connection, "is_closed", is_closed)
    monkeypatch.setattr(Transaction, "start", start)
    return failed
