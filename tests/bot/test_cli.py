"""`shbot`: the demo without a token, the Discord hand-off with one, and the database
commands (replay, stats, backup) on a real database file."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.frontends.fake import FakeFrontend, scripted
from bot.manager import SessionManager
from bot.storage import Storage
from engine import Game
from engine import events as ev

from .conftest import UNTIMED, members


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No token, no database path and no .env from the developer's environment."""
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("DATABASE_PATH", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)


def test_shbot_without_token_runs_a_stored_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "No DISCORD_TOKEN set" in out
    assert " win: " in out and "\nThe reveal\n" in out
    assert Path("data/shbot.db").is_file()  # the default database, as the Discord bot's


def test_shbot_demo_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"
    argv = ["demo", "--players", "5", "--seed", "9", "--speed", "fast", "--db", str(db)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Game #1.") and "5 players" in out
    assert out.rstrip().endswith("Seed 9 (replay it with --seed 9).")  # only after the end
    assert "AI players: no searches, no fallback." in out  # the default agent, belief
    assert db.is_file() and not Path("data/shbot.db").exists()


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["demo", "--players", "11"], ["demo", "--agent", "genius"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
    assert "Unknown agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # an OverflowError traceback from the database before
        cli.main(["stats", "--user", "9" * 20])
    assert "is not a Discord user id" in capsys.readouterr().err
    assert cli.main(["play", "--players", "5", "--seat", "5"]) == 2


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The configs the Discord front-end was started with (its `run`, replaced)."""
    configs: list[Any] = []
    fake_app = types.ModuleType("bot.discord.app")
    fake_app.run = configs.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.discord.app", fake_app)
    return configs


def test_with_a_token_shbot_starts_the_discord_bot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, started: list[Any]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    assert cli.main(["--db", str(tmp_path / "bot.db")]) == 0
    [config] = started
    assert config.discord_token == "not-a-real-token"
    assert config.database_path == tmp_path / "bot.db"


def test_with_a_token_but_no_discord_front_end_shbot_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "bot.discord.app", None)  # import fails
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    assert cli.main([]) == 2
    assert "Discord front-end cannot start" in capsys.readouterr().err


def test_a_token_in_a_dotenv_file_counts(tmp_path: Path, started: list[Any]) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=from-dotenv\n", encoding="utf-8")
    assert cli.main([]) == 0  # the fixture made tmp_path the working directory
    [config] = started
    assert config.discord_token == "from-dotenv"


def test_a_blank_token_is_no_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], started: list[Any]
) -> None:
    """DISCORD_TOKEN=" " (a blank, as the bot reads it) plays the demo; it said
    "DISCORD_TOKEN is not set" and exited 1."""
    monkeypatch.setenv("DISCORD_TOKEN", "  ")
    assert cli.main([]) == 0 and started == []
    assert "No DISCORD_TOKEN set" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["stats"], ["demo", "--speed", "fast"]])
def test_a_dotenv_file_that_is_not_utf8_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, started: list[Any], argv: list[str]
) -> None:
    """A .env saved as UTF-16 (PowerShell 5.1's `echo ... > .env`) gave a
    UnicodeDecodeError traceback for every command: one line names the file now."""
    (tmp_path / ".env").write_text("DATABASE_PATH=games.db\n", encoding="utf-16")
    assert cli.main(argv) != 0 and started == []
    err = capsys.readouterr().err.strip()
    assert err.startswith("shbot: ") and ".env" in err and "UTF-8" in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("error", "message"),
    [(OSError("Name or service not known"), "cannot reach Discord"), (None, "refused the token")],
)
def test_an_unreachable_discord_or_a_bad_token_is_a_clear_message(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: Exception | None,
    message: str,
) -> None:
    import discord

    def run(config: object) -> None:
        raise error or discord.LoginFailure("Improper token has been passed.")

    fake_app = types.ModuleType("bot.discord.app")
    fake_app.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.discord.app", fake_app)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    assert cli.main([]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


async def _games(path: Path | str) -> tuple[int, int]:
    """A finished game with two humans and a game still running; their ids."""
    async with await Storage.open(path) as store:
        manager = SessionManager(store, FakeFrontend(answer=scripted))
        # Played in a server (the ladder rates servers' games; a terminal game has none).
        done = await manager.create(
            members(2), players=5, fill_with_ai=True, seed=1, options=UNTIMED, guild_id=5
        )
        await asyncio.wait_for(done.run(), 30)
        running = await SessionManager(store, FakeFrontend()).create(
            members(5), seed=2, options=UNTIMED
        )
        await running.stop()
        return done.game_id, running.game_id


def test_replay_stats_and_backup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "games.db"
    finished, running = asyncio.run(_games(db))
    monkeypatch.setenv("DATABASE_PATH", str(db))  # the default when --db is not given

    assert cli.main(["replay", str(finished)]) == 0
    out = capsys.readouterr().out
    assert f"Game #{finished} · 5 players" in out and "Roles:" in out
    assert "How the AI read the table" in out and "  The table, " in out  # the AI's suspicion

    assert cli.main(["replay", str(running)]) == 0
    out = capsys.readouterr().out
    assert "running: roles and hidden policies stay secret" in out
    assert "Roles:" not in out and "draws" not in out

    assert cli.main(["stats", "--user", "100"]) == 0
    out = capsys.readouterr().out
    assert "Player 100: 1 finished games" in out
    assert re.search(r"Rating: -?\d+\.\d \(mu \d+\.\d, sigma \d\.\d\), #\d of 3 on", out)
    assert cli.main(["stats"]) == 0
    out = capsys.readouterr().out
    # The rating ladder: both humans and the AI strength that held the other three seats,
    # named as the lobby names it, best first.
    ladder = re.findall(r"^ +(\d)\. +(-?\d+\.\d)  (.*): (\d)/(\d) (games|seats) won$", out, re.M)
    assert [int(rank) for rank, *_ in ladder] == [1, 2, 3]
    assert [float(rating) for _, rating, *_ in ladder] == sorted(
        (float(rating) for _, rating, *_ in ladder), reverse=True
    )
    who = {name: (int(won), int(of), unit) for _, _, name, won, of, unit in ladder}
    assert who["Player0 (id 100)"][1:] == (1, "games") and who["Player1 (id 101)"][1:] == (
        1,
        "games",
    )
    [ai] = [name for name in who if name.startswith("AI: ")]
    assert who[ai][1:] == (3, "seats")
    assert f"#{running}: 5 players, running" in out
    assert f"#{finished}: 5 players, finished · " in out and " win: " in out
    assert "_" not in out.split("Latest games:")[1]  # no raw reason names (five_liberal)

    copy = tmp_path / "copy.db"
    assert cli.main(["backup", str(copy)]) == 0
    assert f"to {copy}" in capsys.readouterr().out

    async def reread() -> int:
        async with await Storage.open(copy) as store:
            return len((await store.load_game(finished)).record.actions)

    assert asyncio.run(reread()) > 0
    assert cli.main(["--db", str(copy), "replay", "99"]) == 1
    assert "No game #99" in capsys.readouterr().err


def test_every_command_reads_the_database_settings_of_a_dotenv_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """DATABASE_PATH in `.env` (as `.env.example` shows) is the bot's database: the
    terminal games and the database commands use it too, not data/shbot.db."""
    (tmp_path / ".env").write_text("DATABASE_PATH=from-dotenv.db\n", encoding="utf-8")
    assert cli.main(["demo", "--players", "5", "--seed", "3", "--speed", "fast"]) == 0
    assert capsys.readouterr().out.startswith("Game #1.")
    assert Path("from-dotenv.db").is_file() and not Path("data").exists()
    assert cli.main(["replay", "1"]) == 0
    assert "Game #1 · 5 players" in capsys.readouterr().out
    assert cli.main(["stats"]) == 0
    assert "#1: 5 players, finished" in capsys.readouterr().out
    assert not Path("data").exists()


def test_with_a_token_a_database_url_given_with_db_is_the_bot_s_url(
    monkeypatch: pytest.MonkeyPatch, started: list[Any]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    url = "postgresql://shbot@db.example:5432/shbot"
    assert cli.main(["--db", url]) == 0
    [config] = started
    assert config.database_url == url and config.database == url
    assert not any(Path().iterdir())  # no SQLite file named after the URL


def test_every_command_and_option_is_described(capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(commands.choices) == {"demo", "play", "cancel", "replay", "stats", "backup"}
    for name, sub in commands.choices.items():
        assert sub.description, name
        for action in sub._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
    for argv in (["--help"], *([name, "--help"] for name in commands.choices)):
        with pytest.raises(SystemExit):
            cli.main(argv)
        text = capsys.readouterr().out
        assert "_players" not in text and "_agent" not in text, argv
    with pytest.raises(SystemExit):
        cli.main(["demo", "--players", "many"])
    err = capsys.readouterr().err
    assert "'many' is not a number of players" in err and "_" not in err.split("error:")[1]


def test_stats_names_each_ending_in_words() -> None:
    assert cli.ending_words("five_liberal") == "Liberals win: five Liberal policies"
    assert cli.ending_words("hitler_elected") == "Fascists win: Hitler elected Chancellor"
    assert cli.ending_words(None) is None


def test_the_bot_does_not_warn_about_voice_it_never_uses(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import discord
    from discord.voice_client import VoiceClient

    monkeypatch.setattr(VoiceClient, "warn_nacl", True)  # as without PyNaCl
    monkeypatch.setattr(VoiceClient, "warn_dave", True)  # as without davey
    fake_app = types.ModuleType("bot.discord.app")
    fake_app.run = lambda config: discord.Client(intents=discord.Intents.default())  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.discord.app", fake_app)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    with caplog.at_level(logging.WARNING):
        assert cli.main([]) == 0
    assert not [r for r in caplog.records if "voice" in r.getMessage()]


def _pngs(directory: Path) -> dict[str, tuple[int, int]]:
    """Every picture in `directory`, decoded (a file that is no PNG fails), and its size."""
    from PIL import Image

    sizes = {}
    for path in sorted(directory.iterdir()):
        with Image.open(path) as image:
            assert image.format == "PNG", path
            image.load()  # the whole file decodes, not just its header
            sizes[path.name] = image.size
    return sizes


def test_images_writes_a_board_per_policy_then_the_final_board_and_the_chart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db, pictures = tmp_path / "games.db", tmp_path / "new" / "pictures"
    argv = ["demo", "--players", "6", "--seed", "5", "--speed", "fast", "--db", str(db)]
    assert cli.main([*argv, "--images", str(pictures)]) == 0
    out = capsys.readouterr().out
    game = asyncio.run(_stored_game(db, 1))
    policies = sum(isinstance(e, ev.PolicyEnacted) for e in game.events)
    sizes = _pngs(pictures)
    boards = [f"game-1-policy-{n:02d}.png" for n in range(1, policies + 1)]
    assert set(sizes) == {*boards, "game-1-final.png", "game-1-suspicion.png"}
    for name, (width, height) in sizes.items():
        assert 600 <= width <= 1200 and 300 <= height <= 1000, name
    assert f"Pictures: {policies} boards, one per policy, then " in out

    # The replay draws the very same pictures from the stored game.
    again = tmp_path / "again"
    assert cli.main(["--db", str(db), "replay", "1", "--images", str(again)]) == 0
    assert f"Pictures in {again}: {policies} boards" in capsys.readouterr().out
    for name in sizes:
        assert (again / name).read_bytes() == (pictures / name).read_bytes(), name


def test_images_into_a_place_that_cannot_hold_them_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    argv = ["demo", "--players", "5", "--speed", "fast", "--images", str(blocker / "pics")]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"shbot: Cannot write pictures to {blocker / 'pics'}")
    assert len(err.strip().splitlines()) == 1


async def _stored_game(path: Path, game_id: int) -> Game:
    async with await Storage.open(path) as store:
        return (await store.load_game(game_id)).record.replay()


def test_replay_step_shows_each_round_with_its_claims_truth_board_and_belief(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from bot.render.steps import SHADES
    from bot.render.story import Teller

    db = tmp_path / "games.db"
    finished, running = asyncio.run(_games(db))
    monkeypatch.setenv("DATABASE_PATH", str(db))
    assert cli.main(["replay", str(finished), "--step"]) == 0  # not a terminal: every page
    out = capsys.readouterr().out
    game = asyncio.run(_stored_game(db, finished))
    pages = out.split("\n\n=== ")
    rounds = sum(isinstance(e, ev.PresidentialCandidate) for e in game.events)
    assert len(pages) == rounds + 1 and pages[0].startswith("=== The deal ===")
    assert all(f"(of {rounds}) ===" in page.splitlines()[0] for page in pages[1:])
    teller = Teller(asyncio.run(_names(db, finished)))
    # Every hidden draw is on the page of its round, and every claim on its government's.
    round_of, page, government, checked = [], 0, 0, Counter[type]()
    for event in game.events:
        page += isinstance(event, ev.PresidentialCandidate)
        round_of.append(page)
    for event, number in zip(game.events, round_of, strict=True):
        if isinstance(event, ev.PoliciesDrawn):
            truth = pages[number].split("The hidden truth:\n", 1)[1]
            assert f"  {teller.line(event)}" in truth.split("The board after it:")[0]
            government = number
            checked[type(event)] += 1
        if isinstance(event, ev.PresidentClaimed):
            claims = pages[government].split("Claims about this government:\n", 1)[1]
            assert f"  {teller.line(event)}" in claims.split("The hidden truth:")[0]
            checked[type(event)] += 1
    assert checked[ev.PoliciesDrawn] and checked[ev.PresidentClaimed]
    # Every page ends with the table's belief: one row per seat, true role first.
    last = pages[-1].split("The table's belief", 1)[1].splitlines()[1:]
    assert len(last) == 5
    for seat, row in enumerate(last):
        assert row.startswith(f"  {game.roles[seat].value[0].upper()} ")
        cells = row.split("|")[1]
        assert cells and set(cells) <= set(SHADES)

    assert cli.main(["replay", str(running), "--step"]) == 1  # its truth stays hidden
    err = capsys.readouterr().err
    assert f"game #{running} is running" in err and "Roles" not in err


async def _names(path: Path, game_id: int) -> list[str]:
    async with await Storage.open(path) as store:
        return [s.name for s in (await store.load_game(game_id)).seats]


def test_step_through_goes_forward_back_and_quits() -> None:
    import io

    pages = ["page zero", "page one", "page two"]
    answers = iter(["", "b", "2", "", "never read"])
    out = io.StringIO()
    cli.step_through(pages, interactive=True, read=lambda prompt: next(answers), out=out)
    shown = [line for line in out.getvalue().splitlines() if line.startswith("page")]
    assert shown == ["page zero", "page one", "page zero", "page two"]  # then Enter: done
    assert next(answers) == "never read"
    out = io.StringIO()
    answers = iter(["q"])
    cli.step_through(pages, interactive=True, read=lambda prompt: next(answers), out=out)
    assert "page one" not in out.getvalue()


# --- DATABASE_URL: the database commands open the bot's PostgreSQL database --------------

pytest_plugins = ["tests.bot.postgres_server"]


@pytest.mark.postgres
def test_database_commands_open_database_url_as_the_bot_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pg_url: str
) -> None:
    """With DATABASE_URL set (the shard processes' database), stats, replay and cancel
    read and write it, not a SQLite file; backup says to use PostgreSQL's own tools."""
    finished, running = asyncio.run(_games(pg_url))
    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setenv("DATABASE_PATH", "elsewhere.db")  # the URL wins, as for the bot

    # A terminal game is stored there too, so replay, stats and cancel find it.
    assert cli.main(["demo", "--players", "5", "--seed", "4", "--speed", "fast"]) == 0
    demo = int(re.match(r"Game #(\d+)\.", capsys.readouterr().out).group(1))  # type: ignore[union-attr]
    assert cli.main(["replay", str(demo)]) == 0
    assert f"Game #{demo} · 5 players" in capsys.readouterr().out

    assert cli.main(["stats", "--user", "100"]) == 0
    assert "Player 100: 1 finished games" in capsys.readouterr().out
    assert cli.main(["replay", str(finished)]) == 0
    assert f"Game #{finished} · 5 players" in capsys.readouterr().out
    assert cli.main(["cancel", str(running)]) == 0
    assert f"Game #{running} is cancelled" in capsys.readouterr().out
    assert cli.main(["backup", "copy.db"]) == 1
    assert "PostgreSQL's own" in capsys.readouterr().err
    assert not Path("elsewhere.db").exists() and not Path("data").exists()

    async def status() -> str:
        async with await Storage.open(pg_url) as store:
            return (await store.load_game(running)).status

    assert asyncio.run(status()) == "cancelled"
    # `--db URL` names the database too; `--db FILE` wins over DATABASE_URL.
    assert cli.main(["--db", pg_url, "replay", str(finished)]) == 0
    assert f"Game #{finished} · 5 players" in capsys.readouterr().out
    assert cli.main(["--db", "local.db", "replay", str(finished)]) == 1
    assert f"No game #{finished}" in capsys.readouterr().err


def test_a_database_url_that_is_not_postgresql_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite:///games.db")
    assert cli.main(["stats"]) == 1
    err = capsys.readouterr().err
    assert "DATABASE_URL must be a postgresql:// URL" in err and "\n" not in err.strip()
    assert not Path("games.db").exists() and not Path("data").exists()


def test_shbot_play_paces_the_ai_as_the_discord_bot_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--pace` defaults to the bot's AI_PACE default and reaches the game; nonsense is
    refused with the reason."""
    import bot.demo
    from bot.config import Config

    assert Config().ai_pace == cli.DEFAULT_PACE_S
    paces: list[float] = []

    async def play_terminal(*args: Any, **kwargs: Any) -> None:
        paces.append(kwargs["ai_pace_s"])

    monkeypatch.setattr(bot.demo, "play_terminal", play_terminal)
    monkeypatch.setattr(cli, "_terminal_game", lambda name, run, db=(): asyncio.run(run(None)) or 0)
    assert cli.main(["play", "--pace", "0.25"]) == 0
    assert cli.main(["play"]) == 0
    assert paces == [0.25, cli.DEFAULT_PACE_S]
    for bad in ("-1", "61", "nan", "soon"):
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args(["play", "--pace", bad])


@pytest.mark.parametrize("images", [False, True])
def test_a_record_that_no_longer_replays_is_a_clear_line_that_quotes_no_move(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, images: bool
) -> None:
    """A running game whose stored actions do not replay (a damaged row): `shbot replay`
    says so in one line, with no traceback and without the move, which may be a hand."""
    import json
    import sqlite3

    db = tmp_path / "games.db"
    finished, _ = asyncio.run(_games(db))
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER actions_no_update")  # what a damaged disk does
        conn.execute("UPDATE games SET status = 'running' WHERE id = ?", (finished,))
        (seq, text), *_ = conn.execute(
            "SELECT seq, action FROM actions WHERE game_id = ? AND action LIKE '%discard%' "
            "ORDER BY seq",
            (finished,),
        ).fetchall()
        action = json.loads(text)
        action["seat"] = (action["seat"] + 1) % 5  # not that seat's move: it does not replay
        conn.execute(
            "UPDATE actions SET action = ? WHERE game_id = ? AND seq = ?",
            (json.dumps(action), finished, seq),
        )
    argv = ["--db", str(db), "replay", str(finished)] + (
        ["--images", str(tmp_path)] if images else []
    )
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.out == ""
    assert f"Game #{finished} is damaged" in captured.err
    assert "does not replay" in captured.err and "Discard" not in captured.err
    assert str(action["policy"]).lower() not in captured.err.lower()


@pytest.fixture
def resumed(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments `resume_terminal` was called with (replaced: no game runs)."""
    import bot.demo

    calls: list[dict[str, Any]] = []

    async def resume_terminal(game_id: int, **kwargs: Any) -> None:
        calls.append({"game_id": game_id, **kwargs})

    monkeypatch.setattr(bot.demo, "resume_terminal", resume_terminal)
    monkeypatch.setattr(cli, "_terminal_game", lambda name, run, db=(): asyncio.run(run(None)) or 0)
    return calls


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["play", "--seat", "2"], ["--seat"]),
        (["play", "--players", "5"], ["--players"]),
        (["play", "--seed", "4"], ["--seed"]),
        (["play", "--agent", "random"], ["--agent"]),
        (["play", "--variant", "rebalanced"], ["--variant"]),
        (["play", "--name", "Zoë"], ["--name"]),
        (["play", "--seat", "0", "--players", "7", "--pace", "2"], ["--players", "--seat"]),
        (["demo", "--players", "5"], ["--players"]),
        (["demo", "--seed", "4", "--speed", "fast"], ["--seed"]),
        (["demo", "--agent", "belief"], ["--agent"]),
        (["demo", "--variant", "standard"], ["--variant"]),
    ],
)
def test_resume_refuses_the_stored_game_s_own_options_in_one_line(
    capsys: pytest.CaptureFixture[str],
    resumed: list[dict[str, Any]],
    argv: list[str],
    named: list[str],
) -> None:
    """`--resume` carries on the stored game with its own seats, players, seed, agent,
    variant and name: one given with it (even equal to the default) is refused, not
    silently dropped (`play --resume 3 --seat 2` used to play seat 0's game)."""
    assert cli.main([*argv, "--resume", "3"]) == 2
    assert resumed == []  # nothing started
    err = capsys.readouterr().err
    [line] = err.strip().splitlines()
    assert line.startswith("shbot: ") and "stored game" in line
    for option in named:
        assert option in line
    others = {"--seat", "--players", "--seed", "--agent", "--variant", "--name"} - set(named)
    assert not any(f"{option} " in line or f"{option}," in line for option in others)


def test_resume_takes_this_run_s_pace_and_speed_and_keeps_the_stored_ones_otherwise(
    resumed: list[dict[str, Any]],
) -> None:
    assert cli.main(["play", "--resume", "3", "--pace", "0.25"]) == 0
    assert cli.main(["play", "--resume", "3"]) == 0
    assert cli.main(["demo", "--resume", "4", "--speed", "normal"]) == 0
    assert [(c["game_id"], c["ai_pace_s"]) for c in resumed[:2]] == [(3, 0.25), (3, None)]
    assert resumed[2]["game_id"] == 4 and resumed[2]["delay"] == cli.SPEEDS["normal"]


def test_a_new_game_gets_the_documented_defaults(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game options default to None in the parser (so `--resume` can tell one that
    was given); a new game still gets the defaults `--help` states."""
    import bot.demo
    from engine import STANDARD

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    async def record(*args: Any, **kwargs: Any) -> None:
        calls.append((args, kwargs))

    monkeypatch.setattr(bot.demo, "play_terminal", record)
    monkeypatch.setattr(bot.demo, "run_demo", record)
    monkeypatch.setattr(cli, "_terminal_game", lambda name, run, db=(): asyncio.run(run(None)) or 0)
    assert cli.main(["play"]) == 0
    assert cli.main(["demo"]) == 0
    (play_args, play), (demo_args, demo) = calls
    assert play_args == (7, 0, None)
    assert play["agent"] == "belief" and play["name"] == "You" and play["variant"] == STANDARD
    assert play["ai_pace_s"] == cli.DEFAULT_PACE_S
    assert demo_args == (7, None) and demo["agent"] == "belief" and demo["variant"] == STANDARD
    for command in ("play", "demo"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "None" not in text, command
        assert "(default: 7)" in text and "(default: belief)" in text, command
        assert "(default: standard)" in text, command
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default: {cli.DEFAULT_PACE_S};" in text and "(default: You)" in text


def _status(db: Path, game_id: int) -> str:
    import sqlite3

    with sqlite3.connect(db) as conn:
        [(status,)] = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,))
    return str(status)


@pytest.mark.parametrize("discord", [False, True])
def test_shbot_cancel_ends_a_terminal_game_whose_row_does_not_read_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, discord: bool
) -> None:
    """A stored terminal game that no longer reads back (a damaged row) could neither be
    resumed nor cancelled: it stayed running for good. `shbot cancel` now ends it as
    cancelled (never resumed, never counted) and says it was damaged; a Discord
    channel's game is still refused, as when its row reads."""
    import sqlite3

    db = tmp_path / "games.db"
    _, running = asyncio.run(_games(db))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET variant = '{\"name\": ' WHERE id = ?", (running,))
        if discord:
            conn.execute("UPDATE games SET guild_id = 6, channel_id = 5 WHERE id = ?", (running,))
    assert cli.main(["--db", str(db), "cancel", str(running)]) == (1 if discord else 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if discord:
        [line] = captured.err.strip().splitlines()
        assert "Discord" in line and captured.out == ""
        # Not "the bot carries it on": at its next start the bot sets a damaged row aside.
        assert "damaged (variant" in line and "sets it aside" in line, line
        assert _status(db, running) == "running"
        return
    [line] = captured.out.strip().splitlines()
    assert f"Game #{running}" in line and "damaged" in line and "cancelled" in line
    assert "variant" in line  # what did not read (never what it holds)
    assert _status(db, running) == "cancelled"
    # Over for good: a second cancel, a resume, say so in one line.
    for argv in (["cancel", str(running)], ["play", "--resume", str(running)]):
        assert cli.main(["--db", str(db), *argv]) == 1
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert cli.main(["--db", str(db), "cancel", str(running)]) == 1
    err = capsys.readouterr().err
    assert f"game #{running} is cancelled, and damaged (variant" in err and "replay" not in err
    # One the bot set aside as damaged already reads as such, not "damaged, and damaged".
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET status = 'damaged' WHERE id = ?", (running,))
    assert cli.main(["--db", str(db), "cancel", str(running)]) == 1
    err = capsys.readouterr().err
    assert f"game #{running} was set aside as damaged (variant" in err, err


@pytest.mark.parametrize(
    "where",
    ["a directory", "the database itself", "its log", "its shared memory", "no name", "no folder"],
)
def test_a_backup_to_a_place_it_cannot_go_says_why_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    where: str,
) -> None:
    """`backup PATH` wrote next to PATH and renamed over it: a directory gave a
    traceback (and left the .partial behind), the database's own path replaced the file
    the bot writes to (the moves made since were lost), and as root /dev/null was
    replaced by a database. It refuses anything but a file of its own, in one line."""
    db = tmp_path / "games.db"
    asyncio.run(_games(db))
    monkeypatch.setenv("DATABASE_PATH", str(db))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    target = {
        "a directory": "folder",
        "the database itself": str(db),
        "its log": "games.db-wal",  # a running bot's write-ahead log, replaced: moves lost
        "its shared memory": str(db) + "-shm",
        "no name": "",
        "no folder": str(tmp_path / "missing" / "copy.db"),
    }[where]
    before = db.read_bytes()
    assert cli.main(["backup", target]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("shbot: ") and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert db.read_bytes() == before  # the database untouched
    assert (tmp_path / "folder").is_dir() and not list(tmp_path.rglob("*.partial"))


def test_a_backup_refuses_a_device(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Not a regular file: refused before anything is written (as root, /dev/null
    was replaced)."""
    db = tmp_path / "games.db"
    asyncio.run(_games(db))
    assert cli.main(["--db", str(db), "backup", os.devnull]) == 1
    assert "not a regular file" in capsys.readouterr().err
    assert Path(os.devnull).is_char_device()


def test_a_hint_never_shows_the_database_password() -> None:
    """`--db postgresql://bot:PASSWORD@host/db` is repeated in the resume hints, which
    land in logs (nohup, CI): without its password."""
    args = cli.build_parser().parse_args(["demo", "--db", "postgresql://bot:s3cret@db:5432/sh"])
    shown = cli._as_typed(cli._db_args(args))
    assert shown == " --db postgresql://bot@db:5432/sh" and "s3cret" not in shown
    args = cli.build_parser().parse_args(["demo", "--db", "my games.db"])
    assert cli._as_typed(cli._db_args(args)) == " --db 'my games.db'"
