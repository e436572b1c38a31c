"""A last-resort answer (`replies.answer(..., quiet=True)`) is logged, never raised, when
the network fails as well as when Discord refuses it: it runs on paths that are already
handling a failure, and whatever it raises reaches the generic handler, which would tell
the member something false ("the game is unchanged")."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.discord.replies import answer


class _Response:
    def __init__(self, fault: BaseException) -> None:
        self.fault = fault

    def is_done(self) -> bool:
        return False

    async def send_message(self, *args: Any, **kwargs: Any) -> None:
        raise self.fault


class _Interaction:
    def __init__(self, fault: BaseException) -> None:
        self.response = _Response(fault)


FAULTS = [aiohttp.ClientConnectionError("connection reset"), TimeoutError()]


@pytest.mark.parametrize("fault", FAULTS, ids=["client-error", "timeout"])
async def test_a_quiet_answer_that_meets_a_network_fault_is_logged(
    fault: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    await answer(_Interaction(fault), "The game was cancelled.", quiet=True)  # type: ignore[arg-type]
    assert "could not answer an interaction" in caplog.text


@pytest.mark.parametrize("fault", FAULTS, ids=["client-error", "timeout"])
async def test_an_answer_that_is_not_quiet_raises_the_network_fault(fault: BaseException) -> None:
    with pytest.raises(type(fault)):
        await answer(_Interaction(fault), "Your vote counted.")  # type: ignore[arg-type]
