"""Configuration from the environment and `.env`: defaults, overrides, readable errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, Timers, config_from, load_config

ROOT = Path(__file__).resolve().parents[3]


def test_defaults_without_any_variable() -> None:
    config = config_from({})
    assert config.discord_token is None
    assert config.database_path == Path("data/shbot.db")
    assert config.dev_guild_id is None
    assert config.log_level == "INFO"
    assert config.timers == Timers(turn_seconds=120, vote_seconds=90, afk_after=2)
    assert config.ai_spec("normal") == "belief"
    assert config.ai_spec("strong") == "belief-ismcts:seconds=2"
    assert config.shard_count is None and config.shard_ids is None
    assert config.sync_commands is True
    assert config.dm_secrets is True
    assert config.ai_seconds == 2.0
    assert config.ai_default == "strong"  # seats are filled with the strongest agent
    assert config.ai_workers == max(1, (os.cpu_count() or 2) - 1)
    assert config.ai_pace == 1.5
    assert config_from({"AI_PACE": "0"}).ai_pace == 0.0  # no pace: moves show at once


def test_env_example_documents_every_variable_and_loads(tmp_path: Path) -> None:
    example = (ROOT / ".env.example").read_text()
    for name in (
        "DISCORD_TOKEN",
        "DEV_GUILD_ID",
        "LOG_LEVEL",
        "AI_SECONDS",
        "AI_EASY",
        "AI_NORMAL",
        "AI_STRONG",
        "AI_DEFAULT",
        "AI_WORKERS",
        "AI_PACE",
        "TURN_SECONDS",
        "VOTE_SECONDS",
        "AFK_AFTER",
        "SHARD_COUNT",
        "SHARD_IDS",
        "SYNC_COMMANDS",
        "DM_SECRETS",
    ):
        assert f"\n{name}=" in example, name
    # Documented but commented out: a value would override the Docker image's /data path.
    assert "\n# DATABASE_PATH=" in example and "\nDATABASE_PATH=" not in example
    assert load_config({}, env_file=ROOT / ".env.example") == Config()


def test_dotenv_is_found_from_the_working_directory_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=from-file\nDEV_GUILD_ID=1234\nVOTE_SECONDS=45\nLOG_LEVEL=debug\n"
    )
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    config = load_config({"VOTE_SECONDS": "30"})
    assert config.discord_token == "from-file"
    assert config.dev_guild_id == 1234
    assert config.timers.vote_seconds == 30
    assert config.log_level == "DEBUG"


def test_the_token_never_shows_in_repr() -> None:
    config = config_from({"DISCORD_TOKEN": "very-secret-token"})
    assert config.discord_token == "very-secret-token"
    assert "very-secret-token" not in repr(config)


def test_ai_seconds_sets_the_strong_budget_and_specs_are_normalised() -> None:
    config = config_from({"AI_SECONDS": "0.5", "AI_EASY": " random "})
    assert config.ai_spec("strong") == "belief-ismcts:seconds=0.5"
    assert config.ai_spec("easy") == "random"
    assert config_from({"AI_STRONG": "ismcts:iterations=500"}).ai_spec("strong") == (
        "ismcts:iterations=500"
    )


def test_sharding_across_processes() -> None:
    config = config_from({"SHARD_COUNT": "4", "SHARD_IDS": "2,3"})
    assert config.shard_count == 4 and config.shard_ids == (2, 3)


@pytest.mark.parametrize(
    ("values", "names"),
    [
        ({"DEV_GUILD_ID": "abc"}, "DEV_GUILD_ID"),
        ({"VOTE_SECONDS": "3"}, "VOTE_SECONDS"),
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL"),
        ({"AI_NORMAL": "chess-engine"}, "AI_NORMAL"),
        ({"AI_DEFAULT": "godlike"}, "AI_DEFAULT"),
        ({"AI_SECONDS": "-1"}, "AI_SECONDS"),
        ({"AI_PACE": "-1"}, "AI_PACE"),
        ({"AI_PACE": "nan"}, "AI_PACE"),
        ({"SYNC_COMMANDS": "maybe"}, "SYNC_COMMANDS"),
        ({"SHARD_IDS": "0,1"}, "SHARD_IDS"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1,2"}, "SHARD_IDS"),
    ],
)
def test_bad_values_name_the_variable(values: dict[str, str], names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        config_from(values)


def test_unknown_strength_is_refused() -> None:
    with pytest.raises(ConfigError, match="strength"):
        Config().ai_spec("godlike")
