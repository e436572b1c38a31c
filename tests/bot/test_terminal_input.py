"""The terminal front-end against bad input and faults (a review of `shbot play` and
`shbot demo`): input that ends at any kind of prompt, a seat that cannot be handed to an
AI, a stored game that does not read back. Every game is a table of `random` AIs."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.demo import NotHere, play_terminal, resume_terminal
from bot.frontends.terminal import TerminalFrontend
from bot.session import GameSession

HANG_S = 20.0  # a 5-9 player game of random AIs takes about a second: more is a hang

# Where the local player (seat 0, answering 1 to everything) meets each kind of prompt:
# (players, seed) and a piece of the question.
PROMPTS = {
    "nominate": (5, 1, "nominate a chancellor"),
    "vote": (5, 1, "Vote on"),
    "discard": (5, 1, "Discard one policy"),
    "enact": (5, 1, "Enact one policy"),
    "claim": (5, 1, "tell the table"),
    "execute": (5, 1, "Execute a player"),
    "special election": (7, 3, "special election"),
    "investigate": (7, 14, "Investigate a player"),
    "veto": (9, 28, "proposes to veto"),
}


def ends_at(out: io.StringIO, question: str) -> Callable[[str], Awaitable[str]]:
    """A reader that answers 1 until the last question shown contains `question`, then
    reports the end of input (Ctrl-D)."""

    async def read_line(prompt: str) -> str:
        asked = out.getvalue().rsplit("(private) ", 1)[-1].split("\n", 1)[0]
        if question in asked:
            raise EOFError
        return "1"

    return read_line


@pytest.mark.parametrize("kind", list(PROMPTS))
async def test_end_of_input_at_any_prompt_hands_the_seat_to_an_ai_and_the_game_ends(
    kind: str,
) -> None:
    players, seed, question = PROMPTS[kind]
    out = io.StringIO()
    game = play_terminal(
        players, 0, seed, agent="random", out=out, read_line=ends_at(out, question)
    )
    session = await asyncio.wait_for(game, HANG_S)  # a hang fails here
    text = out.getvalue()
    assert question in text  # the input really ended at that kind of prompt
    assert "Input closed: an AI plays your seat from now on." in text
    assert session.game.is_over and session.seats[0].is_ai


async def stopped_game(db: Path) -> GameSession:
    """A 5-player game stored as Ctrl-C leaves it: running, the player at a prompt."""
    stop = asyncio.Event()

    async def stop_at_the_first_question(prompt: str) -> str:
        stop.set()
        await asyncio.Event().wait()
        return "1"

    session = await play_terminal(
        5, 0, 2, agent="random", out=io.StringIO(), read_line=stop_at_the_first_question,
        db_path=db, stop=stop,
    )  # fmt: skip
    assert not session.game.is_over
    return session


def stored_rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return [
            *conn.execute("SELECT status, pause_reason FROM games"),
            *conn.execute("SELECT seat, user_id, agent FROM seats ORDER BY seat"),
            *conn.execute("SELECT count(*) FROM actions"),
        ]


@pytest.mark.parametrize("player", [True, False])
@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE seats SET user_id = 77, agent = NULL WHERE seat = 2",  # someone not here
        "UPDATE seats SET user_id = 1, agent = NULL WHERE seat = 2",  # the player twice
    ],
)
async def test_a_stored_game_with_a_human_seat_nobody_here_plays_is_refused(
    tmp_path: Path, damage: str, player: bool
) -> None:
    """An untimed game would wait for ever for a seat whose player is not at this
    terminal: resuming it is refused, in one line, and the stored game is left as is."""
    db = tmp_path / "games.db"
    stopped = await stopped_game(db)
    with sqlite3.connect(db) as conn:
        conn.execute(damage)
    before = stored_rows(db)
    resuming = resume_terminal(
        stopped.game_id, player=player, out=io.StringIO(), read_line=ends_at(io.StringIO(), ""),
        db_path=db,
    )  # fmt: skip
    with pytest.raises(NotHere) as refused:
        await asyncio.wait_for(resuming, HANG_S)
    said = str(refused.value)
    assert "\n" not in said and f"shbot cancel {stopped.game_id}" in said
    assert stored_rows(db) == before


async def test_a_fault_while_asking_stops_the_game_rather_than_wait_for_good(
    tmp_path: Path,
) -> None:
    """A prompt the terminal fails to ask would never be answered (an untimed game):
    the game stops, stored, and the front-end says why."""

    async def broken_reader(prompt: str) -> str:
        raise RuntimeError("the terminal itself failed")

    db = tmp_path / "games.db"
    out = io.StringIO()
    game = play_terminal(5, 0, 2, agent="random", out=out, read_line=broken_reader, db_path=db)
    session = await asyncio.wait_for(game, HANG_S)  # a hang fails here
    frontend = session.frontend
    assert isinstance(frontend, TerminalFrontend)
    assert frontend.halt == "your move could not be asked (RuntimeError)"
    assert not session.game.is_over and "an AI plays your seat" not in out.getvalue()
    assert stored_rows(db)[0] == ("running", None)  # stored, resumable


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("\udcff\udcfe", "UTF-8"),  # bytes that are not UTF-8, as Python passes them on
        ("", "blank"),
        ("   ", "blank"),
        ("two\nlines", "one line"),
        ("\x1b[31mred", "one line"),  # a terminal escape would print as a command
        ("x" * 33, "32"),
        # An AI seat's label ("Boris (AI)"): a person would pass for an AI at the table.
        ("Boris (AI)", "(AI)"),
        ("Zoë (ai) ", "(AI)"),
        ("Boris(AI)", "(AI)"),
        ("Boris ( Ai )", "(AI)"),
        ("Boris \uff08\uff21\uff29\uff09", "(AI)"),  # fullwidth: reads the same at the table
        # Invisible characters after the mark (a joiner, a filler, a braille blank, an
        # underline mark): the table still reads "Boris (AI)".
        ("Boris (AI)\u034f", "(AI)"),
        ("Boris (AI)\u3164", "(AI)"),
        ("Boris (AI)\u2800", "(AI)"),
        ("Boris (AI\u0332)", "(AI)"),
    ],
)
def test_a_name_that_cannot_sit_at_the_table_is_refused_before_a_game_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, says: str
) -> None:
    from bot import cli

    db = tmp_path / "games.db"
    with pytest.raises(SystemExit) as refused:
        cli.main(["play", "--name", name, "--players", "5", "--db", str(db)])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "argument --name: " in err and says in err
    assert not db.exists()  # no game was stored


def test_a_name_is_kept_as_typed_without_its_outer_spaces() -> None:
    from bot.cli import player_name

    assert player_name("  Ada Lovelace ") == "Ada Lovelace"
    assert player_name("Zoë 🎲") == "Zoë 🎲"
    assert player_name("AI fan") == "AI fan" and player_name("Dr. (AI) Ada") == "Dr. (AI) Ada"


async def test_a_choice_the_rules_refuse_is_told_in_one_line_and_asked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The terminal lists only eligible chancellors, so a term-limited one cannot be
    typed; if the rules refuse a choice all the same (here a nomination of the
    term-limited chancellor, made in place of the first choice typed), the player is
    told why in one line and asked again, and the game goes on."""
    from engine import Nominate

    refused: list[int] = []
    real_choose = GameSession.choose

    async def choose(self: GameSession, user_id: int, prompt_id: str, option: int) -> object:
        [prompt] = [p for p in self.open_prompts(0) if p.id == prompt_id]
        limited = self.game.term_limited()
        if isinstance(prompt.options[0].action, Nominate) and limited and not refused:
            labels = [option.label for option in prompt.options]
            assert not any(self.table.labels[seat] in labels for seat in limited)
            refused.append(limited[-1])
            await self.submit(0, Nominate(0, limited[-1]))  # IllegalAction: term-limited
        return await real_choose(self, user_id, prompt_id, option)

    monkeypatch.setattr(GameSession, "choose", choose)
    out = io.StringIO()
    session = await asyncio.wait_for(
        play_terminal(5, 0, 1, agent="random", out=out, read_line=ends_at(out, "\0")), HANG_S
    )
    assert refused and session.game.is_over
    lines = out.getvalue().splitlines()
    [told] = [i for i, line in enumerate(lines) if line.startswith("  Not possible: ")]
    reason = f"Seat {refused[0]} is term-limited: they served in the last elected government."
    assert lines[told] == f"  Not possible: {reason}"
    assert lines[told + 1].startswith("  You nominate ")  # asked again: the next answer counts


class StopAt(io.StringIO):
    """An output that sets `stop` (Ctrl-C) once `text` has been written to it."""

    def __init__(self, text: str, stop: asyncio.Event) -> None:
        super().__init__()
        self.text, self.stop = text, stop

    def write(self, s: str) -> int:
        if self.text in s:
            self.stop.set()
        return super().write(s)


async def test_a_resumed_demo_tells_no_secret_before_the_reveal(tmp_path: Path) -> None:
    from bot.demo import run_demo

    db = tmp_path / "games.db"
    stop = asyncio.Event()
    first = StopAt("Round 3 ", stop)
    stopped = await run_demo(7, 5, agent="random", out=first, delay=0.001, db_path=db, stop=stop)
    assert not stopped.game.is_over
    out = io.StringIO()
    session = await resume_terminal(stopped.game_id, player=False, out=out, db_path=db)
    assert session.game.is_over
    live = first.getvalue() + out.getvalue().split("\nThe reveal\n")[0]
    teller = TerminalFrontend().teller(session.table)
    for event in session.game.events:
        line = teller.line(event) if event.audience is not None else None
        assert line is None or line not in live, line
    for secret in ("(private)", "Liberals:", "Fascists:", "Hitler:", "Seed "):
        assert secret not in live
