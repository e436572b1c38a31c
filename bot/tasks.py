"""Small helpers for the asyncio tasks a game runs."""

from __future__ import annotations

import asyncio
from typing import Any


def cancelled_here() -> bool:
    """Whether the running task was asked to stop (`Task.cancel`), rather than hit by a
    CancelledError that leaked from something it awaited (a worker pool shutting down
    cancels its futures; that must not stop a game)."""
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


def consume(task: asyncio.Task[Any]) -> None:
    """Retrieve a finished task's exception, so that a caller that left leaves no
    "exception was never retrieved" warning (the failure is reported elsewhere)."""
    if not task.cancelled():
        task.exception()
