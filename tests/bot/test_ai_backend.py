"""AI_BACKEND and RAY_ADDRESS: read, checked together, and turned into the AI service."""

from __future__ import annotations

import pytest

from agents.service import AgentService
from bot.agent_port import ai_service
from bot.config import ConfigError, config_from


def test_the_ai_thinks_on_this_machine_unless_told_otherwise() -> None:
    config = config_from({})
    assert config.ai_backend == "local" and config.ray_address is None
    service = ai_service(config.ai_backend, workers=1, ray_address=config.ray_address)
    assert isinstance(service, AgentService) and service.workers == 1


def test_ray_is_chosen_with_or_without_an_address() -> None:
    config = config_from({"AI_BACKEND": "Ray", "RAY_ADDRESS": "ray://127.0.0.1:10001"})
    assert config.ai_backend == "ray" and config.ray_address == "ray://127.0.0.1:10001"
    assert config_from({"AI_BACKEND": "ray"}).ray_address is None  # a local Ray instance


@pytest.mark.parametrize(
    ("values", "names"),
    [
        ({"AI_BACKEND": "dask"}, "AI_BACKEND"),
        # An address without the backend would quietly leave the cluster unused.
        ({"RAY_ADDRESS": "127.0.0.1:6379"}, "AI_BACKEND=ray"),
    ],
)
def test_a_backend_mistake_is_a_config_error_naming_it(values: dict[str, str], names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        config_from(values)


def test_an_unknown_backend_is_refused_by_the_factory_too() -> None:
    with pytest.raises(ValueError, match="dask"):
        ai_service("dask")
