"""Playing in the terminal: numbered prompts, bad input asked again with a reason, the
player's private information shown to them only, claims offered, end of input handled."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.demo import play_terminal
from bot.frontends.terminal import TerminalFrontend
from bot.render.story import story_lines
from bot.storage import Storage
from engine import Claim
from engine import events as ev

REVEAL = "\nThe reveal\n"


def in_order(wanted: list[str], lines: list[str]) -> bool:
    """Whether `wanted` occur in `lines` in that order (other lines may come between)."""
    rest = iter(lines)
    return all(any(line == want for line in rest) for want in wanted)


def reader(bad: list[str], then: Callable[[], str] = lambda: "1") -> Callable[[str], object]:
    """Answers `bad` lines first, then `then()` for every question."""
    lines = list(bad)
    asked: list[str] = []

    async def read_line(prompt: str) -> str:
        asked.append(prompt)
        return lines.pop(0) if lines else then()

    read_line.asked = asked  # type: ignore[attr-defined]
    return read_line


async def test_a_local_player_plays_a_whole_game_with_numbered_choices() -> None:
    out = io.StringIO()
    read_line = reader(["", "x", "0", "99"])
    session = await play_terminal(5, seat=2, seed=4, out=out, read_line=read_line)  # type: ignore[arg-type]
    game = session.game
    assert game.is_over
    text = out.getvalue()
    live, reveal = text.split(REVEAL)
    assert "Seed" not in live and "Seed 4 " in reveal  # the seed would tell every role
    # Bad input was refused with a reason, then the question was asked again.
    assert live.count("Type a number from 1 to") == 4
    my_moves = [a for a in game.actions if a.seat == 2 and not isinstance(a, Claim)]
    assert my_moves and session.seats[2].user_id == 1 and not session.seats[2].is_ai
    # The player saw their own secrets, and nobody else's, told to them as "you".
    teller = TerminalFrontend(seat=2).teller(session.table)
    mine = [e for e in game.events if e.audience == frozenset({2})]
    others = [e for e in game.events if e.audience is not None and 2 not in e.audience]
    assert isinstance(mine[0], ev.RoleDealt)
    assert f"(private) Your role: {game.roles[2].value}." in live
    for event in mine:
        line = teller.line(event)
        assert line is not None and f"(private) {line}" in live
        assert line.startswith(("You ", "Your "))
    for event in others:
        line = teller.line(event)
        assert line is None or line not in live
    # The table's story is told in order (prompts and secrets in between), in rounds.
    public = [e for e in game.events if e.audience is None]
    assert in_order([line for line in story_lines(public, teller) if line], live.splitlines())
    assert "\nRound 1 · " in live
    if any(isinstance(e, ev.ChancellorNominated) and e.president == 2 for e in public):
        assert "  You nominate " in live
    assert "You (seat 2)" not in live.split("\n", 1)[1]  # only the header lists seats
    # A terminal takes the first answer: it promises no changing of votes.
    assert "Vote on President" in live and "change your vote" not in live
    # Claims were offered after the player's sessions, with the option to stay silent.
    if any(isinstance(e, (ev.PoliciesDrawn, ev.PoliciesReceived)) for e in mine):
        assert "Say nothing" in live


async def test_end_of_input_hands_the_seat_to_an_ai_and_the_game_finishes() -> None:
    def closed() -> str:
        raise EOFError

    out = io.StringIO()
    session = await play_terminal(6, seat=0, seed=9, out=out, read_line=reader([], closed))  # type: ignore[arg-type]
    assert session.game.is_over
    assert "Input closed: an AI plays your seat from now on." in out.getvalue()
    assert session.seats[0].is_ai and session.seats[0].user_id == 1


# --- issue 18, item 14: input of any kind, resuming, the output going away -------------


def test_only_a_whole_number_in_range_picks_an_option() -> None:
    from bot.frontends.terminal import parse_choice

    assert parse_choice("1", 3) == 0 and parse_choice(" 3 \t", 3) == 2
    assert parse_choice("\uff12", 3) == 1  # a fullwidth 2 is a decimal number
    assert parse_choice("\u0663", 3) == 2  # so is an Arabic-Indic 3
    for line in ["", " ", "0", "4", "-1", "+1", "1.0", "1e0", "1_0", "²", "³", "\u0664",
                 "9" * 5000, "\x00", "\x1b[A", "\ufffd", "one"]:  # fmt: skip
        assert parse_choice(line, 3) is None, line


async def test_stdin_lines_are_read_whatever_the_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from bot.frontends import terminal

    shown: list[str] = []
    prompts = io.StringIO()
    monkeypatch.setattr(sys, "stdout", prompts)
    read_fd, write_fd = os.pipe()
    reader = terminal.StdinReader(read_fd)
    try:
        pending = asyncio.ensure_future(reader("> "))
        await asyncio.sleep(0.05)
        pending.cancel()  # a read interrupted half-way loses nothing
        await asyncio.gather(pending, return_exceptions=True)
        os.write(write_fd, "²\n".encode())
        os.write(write_fd, b"\xff\xfe\r\n" + b"x" * (terminal.MAX_LINE + 10) + b"\nlast")
        os.close(write_fd)
        while True:
            try:
                shown.append(await asyncio.wait_for(reader("> "), 5))
            except EOFError:
                break
    finally:
        os.close(read_fd)
    assert shown[:2] == ["²", "\ufffd\ufffd"]
    assert shown[2] == "x" * terminal.MAX_LINE  # one line, cut, not a hang nor many lines
    assert shown[3:] == ["last"]  # a last line without its newline still counts
    assert prompts.getvalue().startswith("> > ")


def test_a_pipe_whose_reader_left_is_noticed_without_writing() -> None:
    import os

    from bot.frontends.terminal import output_gone

    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "w") as out:
        assert not output_gone(out)
        os.close(read_fd)
        assert output_gone(out)
    assert not output_gone(io.StringIO())


def test_session_notices_in_a_terminal_name_no_discord_commands() -> None:
    from bot.frontends.terminal import _terminal_words

    paused = (
        "This game is paused because of an internal error (StorageError). A host can type "
        "/resume to carry on, or /cancel to end it."
    )
    said = _terminal_words(paused)
    assert said == "This game is paused because of an internal error (StorageError)."
    assert _terminal_words("The bot restarted: the game resumes where it stopped.") == (
        "The game resumes where it stopped."
    )
    assert _terminal_words("Board: 3/5, and a/b.") == "Board: 3/5, and a/b."


async def stopped_after(db: Path, answers: int, *, seat: int = 1, seed: int = 11) -> Any:
    """A terminal game (`shbot play`) whose player answers "1" `answers` times, then
    presses Ctrl-C while thinking: the session as it stopped, stored in `db`."""
    stop = asyncio.Event()
    asked = 0

    async def answer_then_stop(prompt: str) -> str:
        nonlocal asked
        asked += 1
        if asked > answers:
            stop.set()
            await asyncio.Event().wait()
        return "1"

    return await play_terminal(
        5, seat=seat, seed=seed, agent="random", out=io.StringIO(),
        read_line=answer_then_stop, db_path=db, stop=stop,
    )  # fmt: skip


async def played_to_the_end(db: Path, game_id: int) -> tuple[Any, io.StringIO]:
    """`shbot play --resume` of a stored game, its player answering "1" to the end: the
    session and everything the terminal printed."""
    from bot.demo import resume_terminal

    out = io.StringIO()
    read_line = reader([])
    session = await resume_terminal(
        game_id,
        player=True,
        out=out,
        read_line=read_line,  # type: ignore[arg-type]
        db_path=db,
    )
    return session, out


async def test_a_resumed_game_tells_the_player_their_own_secrets_and_nobody_elses(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    stopped = await stopped_after(db, 6)
    assert not stopped.game.is_over and not stopped.paused
    before = len(stopped.game.actions)

    session, out = await played_to_the_end(db, stopped.game_id)
    assert session.game.is_over and len(session.game.actions) > before
    text = out.getvalue()
    assert text.startswith(f"Game #{stopped.game_id} resumes. Players: ")
    assert "The bot restarted" not in text and "Seed 11 " in text
    recap = text.split(REVEAL)[0]
    teller = TerminalFrontend(seat=1).teller(session.table)
    mine = [
        e for e in session.game.events[: len(stopped.game.events)] if e.audience and 1 in e.audience
    ]
    assert isinstance(mine[0], ev.RoleDealt)
    for event in mine:
        line = teller.line(event)
        assert line is not None and f"(private) {line}" in recap
    for event in session.game.events:
        if event.audience is not None and 1 not in event.audience:
            line = teller.line(event)
            assert line is None or line not in recap
    # The rounds are counted from the game, so the resumed story carries on the count.
    rounds = sum(isinstance(e, ev.PresidentialCandidate) for e in stopped.game.events)
    assert f"\nRound {rounds + 1} · " in recap and "\nRound 1 · " not in recap


async def test_resuming_gives_the_terminal_its_seat_back_after_input_closed(
    tmp_path: Path,
) -> None:
    import sqlite3

    from bot.demo import resume_terminal

    db = tmp_path / "games.db"
    stopped = await stopped_after(db, 0, seat=0, seed=2)  # Ctrl-C at the first question
    assert not stopped.game.is_over
    with sqlite3.connect(db) as conn:  # as stored when input closed: an AI took the seat
        conn.execute("UPDATE seats SET agent = 'random' WHERE seat = 0")

    out = io.StringIO()
    read_line = reader([])
    session = await resume_terminal(
        stopped.game_id,
        player=True,
        out=out,
        read_line=read_line,  # type: ignore[arg-type]
        db_path=db,
    )
    assert session.game.is_over and not session.seats[0].is_ai
    assert session.seats[0].user_id == 1
    assert "is back and plays their own seat again" in out.getvalue()
    assert read_line.asked  # type: ignore[attr-defined]  # the player decides again


async def test_a_paced_terminal_game_shows_an_ai_move_no_sooner_than_its_budget() -> None:
    """`shbot play` paces the AI as a Discord table with people does: even an instant
    agent's move waits out the thinking budget, so its speed tells nothing."""
    from bot.agent_port import DEFAULT_BUDGET_S

    stop = asyncio.Event()
    asked_after: list[float] = []
    loop = asyncio.get_running_loop()
    started = loop.time()

    async def first_question_then_stop(prompt: str) -> str:
        asked_after.append(loop.time() - started)
        stop.set()
        await asyncio.Event().wait()
        return "1"

    session = await play_terminal(
        5, seat=4, seed=2, agent="random", out=io.StringIO(),
        read_line=first_question_then_stop, stop=stop, ai_pace_s=0.01,
    )  # fmt: skip
    # An AI President nominated first (instantly), then the player was asked to vote.
    assert [type(a).__name__ for a in session.game.actions][:1] == ["Nominate"]
    assert session.game.actions[0].seat != 4
    assert asked_after and asked_after[0] >= DEFAULT_BUDGET_S
    assert session.options.ai_pace_s == 0.01  # stored: `--resume` keeps the pace


def stopped_at_the_first_question() -> tuple[asyncio.Event, Callable[[str], object]]:
    """A stop event, and a reader that sets it at the first question (Ctrl-C there)."""
    stop = asyncio.Event()

    async def read_line(prompt: str) -> str:
        stop.set()
        await asyncio.Event().wait()
        return "1"

    return stop, read_line


async def test_a_resumed_game_takes_the_pace_given_for_this_run(tmp_path: Path) -> None:
    """`shbot play --resume ID --pace S` paces the AI at S from now on; without it, the
    stored game's own pace goes on."""
    from bot.demo import resume_terminal

    db = tmp_path / "games.db"
    stop, read_line = stopped_at_the_first_question()
    session = await play_terminal(
        5, seat=4, seed=2, agent="random", out=io.StringIO(), db_path=db,
        read_line=read_line, stop=stop, ai_pace_s=0.0,  # type: ignore[arg-type]
    )  # fmt: skip
    paces = [session.options.ai_pace_s]
    for pace, paused in ((None, False), (0.01, False), (None, False), (0.02, True)):
        if paused:  # stopped by a fault: resumed through the manager's resume_paused path
            async with await Storage.open(db) as store:
                await store.pause_game(session.game_id, "DiskError at bot/session.py:1 (_x)")
        stop, read_line = stopped_at_the_first_question()
        session = await resume_terminal(
            session.game_id, player=True, out=io.StringIO(), db_path=db,
            read_line=read_line, stop=stop, ai_pace_s=pace,  # type: ignore[arg-type]
        )  # fmt: skip
        assert not session.game.is_over
        paces.append(session.options.ai_pace_s)
    assert paces == [0.0, 0.0, 0.01, 0.0, 0.02]  # this run's only: the stored pace stays
    async with await Storage.open(db) as store:
        assert (await store.load_game(session.game_id)).status == "running"


@pytest.mark.parametrize("shown", ["nothing", "the opening only"])
async def test_a_resumed_game_tells_the_player_each_secret_once(tmp_path: Path, shown: str) -> None:
    """The process died before the table saw part of the game: the session shows that
    part again when it resumes, so the terminal's recap of what the player knew stops
    where the table's view stopped (the role was told twice before)."""
    import json
    import sqlite3

    db = tmp_path / "games.db"
    stopped = await stopped_after(db, 4)
    assert len(stopped.game.actions) > 2
    cursor = -1 if shown == "nothing" else 0
    with sqlite3.connect(db) as conn:  # as a process killed that early stored it
        [(state,)] = conn.execute("SELECT session_state FROM games").fetchall()
        conn.execute(
            "UPDATE games SET session_state = ?",
            (json.dumps({**json.loads(state), "shown": cursor}),),
        )

    session, out = await played_to_the_end(db, stopped.game_id)
    assert session.game.is_over
    told = out.getvalue().split(REVEAL)[0]
    teller = TerminalFrontend(seat=1).teller(session.table)
    mine = [e for e in stopped.game.events if e.audience and 1 in e.audience]
    assert isinstance(mine[0], ev.RoleDealt)
    for event in mine:
        line = teller.line(event)
        assert line is not None and told.count(line) == 1, (line, told)
