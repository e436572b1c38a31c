"""Transport faults in the simulated Discord: a request that never gets an answer.

simcord's `inject_error` makes Discord *answer* with an HTTP error; a dropped connection
or a timeout is another fault (aiohttp's, or `TimeoutError`), after which the request
may or may not have been carried out. `NetworkFaults` raises one in place of matching
requests, before they reach the simulated Discord (so the request is not carried out).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter, _path_of


@dataclass
class _Fault:
    method: str
    path: str
    fault: BaseException
    times: int


class NetworkFaults:
    """Make the next `times` requests matching a method and an fnmatch path pattern
    (e.g. ``"/webhooks/*"``) fail with `fault` instead of reaching Discord."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._faults: list[_Fault] = []
        self.raised: list[tuple[str, str]] = []
        for cls in (FakeHTTPClient, FakeWebhookAdapter):
            monkeypatch.setattr(cls, "request", self._guard(cls.request))

    def fail(self, method: str, path: str, fault: BaseException, *, times: int = 1) -> None:
        self._faults.append(_Fault(method, path, fault, times))

    def _guard(self, request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def guarded(client: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
            path = _path_of(route.url)
            for fault in self._faults:
                if (
                    fault.times
                    and route.method == fault.method
                    and fnmatch.fnmatch(path, fault.path)
                ):
                    fault.times -= 1
                    self.raised.append((route.method, path))
                    raise fault.fault
            return await request(client, route, *args, **kwargs)

        return guarded
