"""`shbot play` and `shbot demo` as a person runs them: the real CLI process (`python -m
bot`), its input piped, signals sent to it, its output read or closed early (issue 18,
items 14 and 9). Every game is a 5-player table of `random` AIs, so each run takes a
fraction of a second; every wait has a deadline, so a hang fails instead of stalling."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHOICE = "Your choice (1-"
ANSWERS = b"1\n" * 400  # option 1 always exists: enough to finish any 5-player game


def as_from_a_terminal() -> None:
    """In the child: Ctrl-C as a terminal's foreground process gets it. A shell without
    job control starts `cmd &` with SIGINT ignored, and the child would inherit that
    from a test run started so (CI launched in the background): Python then never
    raises KeyboardInterrupt, and the Ctrl-C tests would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_PATH")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Shbot:
    """`python -m bot *args` in a child process, its standard streams piped; a thread
    collects what it prints, so the test can wait for a line without blocking."""

    def __init__(self, cwd: Path, *args: str, stdin: bytes | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=_env(),
            preexec_fn=as_from_a_terminal,
        )
        self._out = bytearray()
        self._err = bytearray()
        self._out_closing = threading.Event()
        self._threads = [
            threading.Thread(target=self._collect, args=(self.proc.stdout, self._out), daemon=True),
            threading.Thread(target=self._collect, args=(self.proc.stderr, self._err), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        if stdin is not None:
            self.send(stdin)
            self.close_stdin()

    def _collect(self, stream: object, into: bytearray) -> None:
        fd = stream.fileno()  # type: ignore[attr-defined]
        while not (into is self._out and self._out_closing.is_set()):
            # Never block in read: a blocked read would keep the pipe open after close.
            if not select.select([fd], [], [], 0.02)[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            into.extend(chunk)

    @property
    def out(self) -> str:
        return self._out.decode("utf-8", errors="replace")

    @property
    def err(self) -> str:
        return self._err.decode("utf-8", errors="replace")

    def wait_for(self, text: str, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while text not in self.out:
            if self.proc.poll() is not None or time.monotonic() > end:
                self.kill()
                raise AssertionError(f"{text!r} never shown; out:\n{self.out}\nerr:\n{self.err}")
            time.sleep(0.01)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it has ended already: the test says
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()

    def close_stdout(self) -> None:
        """The reader goes away (`| head`): our end of its output pipe closes."""
        assert self.proc.stdout is not None
        self._out_closing.set()
        self._threads[0].join(5)
        self.proc.stdout.close()

    def finish(self, timeout: float = 20.0) -> int:
        """Its exit status, once it has exited (within `timeout` seconds, or the test fails)."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"still running after {timeout} s; out:\n{self.out[-2000:]}\nerr:\n{self.err}"
            ) from None
        for thread in self._threads:
            thread.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def shbot(cwd: Path, *args: str, stdin: bytes = b"", timeout: float = 30.0) -> Shbot:
    """Run `shbot *args` to its end with `stdin` as its whole input."""
    run = Shbot(cwd, *args, stdin=stdin)
    run.finish(timeout)
    return run


def stored(db: Path, game_id: int = 1) -> tuple[str, str | None, int]:
    """A game's stored status, pause reason and number of stored actions."""
    with sqlite3.connect(db) as conn:
        status, reason = conn.execute(
            "SELECT status, pause_reason FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        (actions,) = conn.execute(
            "SELECT count(*) FROM actions WHERE game_id = ?", (game_id,)
        ).fetchone()
    return status, reason, actions


def seats(db: Path, game_id: int = 1) -> list[tuple[int, str, int | None, str | None]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT seat, name, user_id, agent FROM seats WHERE game_id = ? ORDER BY seat",
            (game_id,),
        ).fetchall()


def no_traceback(run: Shbot) -> None:
    assert "Traceback" not in run.err and "Traceback" not in run.out, run.err
    assert "Exception ignored" not in run.err, run.err


# Unpaced (`--pace 0`): these games are about processes, not the AI's timing, and a
# paced game would wait out the thinking budget at every AI move.
PLAY = ("play", "--players", "5", "--agent", "random", "--seed", "3", "--pace", "0")


# --- Ctrl-C: saved at once, then resumed or cancelled --------------------------------


def test_ctrl_c_at_a_prompt_saves_and_exits_at_once_and_play_resume_carries_on(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    asked = time.monotonic()
    run.proc.send_signal(signal.SIGINT)
    assert run.finish(timeout=5) == 130
    assert time.monotonic() - asked < 3  # at once: no Enter needed
    no_traceback(run)
    assert f"shbot play --db {db} --resume 1" in run.err and f"shbot cancel --db {db} 1" in run.err
    status, _, actions = stored(db)
    assert status == "running" and actions > 0  # saved, resumable
    before = seats(db)
    assert before[0][2] == 1 and before[0][3] is None  # the terminal's seat, played by a human

    again = Shbot(tmp_path, "play", "--resume", "1", "--db", str(db), stdin=ANSWERS)
    assert again.finish() == 0, again.err
    no_traceback(again)
    assert CHOICE in again.out  # the human seat is asked again, at the terminal
    assert "Input closed" not in again.out
    assert "The reveal" in again.out
    status, _, resumed = stored(db)
    assert status == "finished" and resumed > actions
    assert seats(db) == before  # the same seats: nobody was handed to an AI


def test_ctrl_c_in_a_demo_saves_it_and_demo_resume_finishes_it(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    demo = ("demo", "--players", "5", "--agent", "random", "--seed", "4", "--db", str(db))
    run = Shbot(tmp_path, *demo, "--speed", "normal")  # paced: 0.6 s a line
    run.wait_for(" for President")
    run.proc.send_signal(signal.SIGINT)
    assert run.finish(timeout=5) == 130
    no_traceback(run)
    # The hint names the database it was given: without it, it carried on (or
    # cancelled) game #1 of the default database, another game.
    assert f"`shbot demo --db {db} --resume 1` carries it on" in run.err
    assert f"`shbot cancel --db {db} 1` ends it" in run.err
    assert stored(db)[0] == "running"

    # A demo game is the demo's to resume; play says which command does.
    wrong = shbot(tmp_path, "play", "--resume", "1", "--db", str(db))
    assert wrong.proc.returncode != 0 and "shbot demo --resume 1" in wrong.err
    no_traceback(wrong)

    again = shbot(tmp_path, "demo", "--resume", "1", "--speed", "fast", "--db", str(db))
    assert again.proc.returncode == 0, again.err
    no_traceback(again)
    assert "The reveal" in again.out and stored(db)[0] == "finished"


def test_a_kill_saves_the_game_too(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    run.proc.send_signal(signal.SIGTERM)
    assert run.finish(timeout=5) == 128 + signal.SIGTERM
    no_traceback(run)
    assert f"shbot play --db {db} --resume 1" in run.err and stored(db)[0] == "running"


def test_shbot_cancel_ends_a_saved_game_which_never_counts_nor_resumes(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    run.proc.send_signal(signal.SIGINT)
    assert run.finish(timeout=5) == 130

    cancel = shbot(tmp_path, "cancel", "1", "--db", str(db))
    assert cancel.proc.returncode == 0, cancel.err
    assert "Game #1 is cancelled" in cancel.out
    no_traceback(cancel)
    assert stored(db)[0] == "cancelled"

    stats = shbot(tmp_path, "stats", "--user", "1", "--db", str(db))
    assert "Player 1: 0 finished games" in stats.out
    for args, says in [
        (("play", "--resume", "1"), "game #1 is cancelled"),
        (("cancel", "1"), "game #1 is cancelled"),
        (("cancel", "7"), "No game #7"),
        (("play", "--resume", "7"), "No game #7"),
    ]:
        refused = shbot(tmp_path, *args, "--db", str(db))
        assert refused.proc.returncode == 1, (args, refused.err)
        assert says in refused.err and len(refused.err.strip().splitlines()) == 1, refused.err
        no_traceback(refused)


def test_a_discord_game_is_neither_resumed_nor_cancelled_from_the_terminal(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    assert shbot(tmp_path, *PLAY, "--db", str(db), stdin=ANSWERS).proc.returncode == 0
    with sqlite3.connect(db) as conn:  # make it look like a game of a Discord channel
        conn.execute("UPDATE games SET status = 'running', channel_id = 5, guild_id = 6")
    for args in (("play", "--resume", "1"), ("demo", "--resume", "1"), ("cancel", "1")):
        refused = shbot(tmp_path, *args, "--db", str(db))
        assert refused.proc.returncode == 1 and "Discord" in refused.err, refused.err
        no_traceback(refused)
    assert stored(db)[0] == "running"


# --- bad input, end of input ------------------------------------------------------------


def test_bad_input_is_asked_again_and_never_hangs_the_game(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    bad = [
        "²".encode(),  # a digit to str.isdigit, not a number to int
        "\u0663\u0663".encode(),  # Arabic-Indic 33: a number, out of range
        "\uff11\uff12".encode(),  # fullwidth 12: a number, out of range
        b"\xff\xfe",  # not UTF-8 at all
        b"",
        b"   ",
        b"0",
        b"99",
        b"-1",
        b"+1",
        b"1_0",
        b"1e3",
        b"\x1b[A",
        b"\x00",
        b"9" * 5000,  # more digits than int() accepts
        b"x" * 100_000,  # longer than a line may be
    ]
    run = shbot(tmp_path, *PLAY, "--db", str(db), stdin=b"\n".join(bad) + b"\n" + ANSWERS)
    assert run.proc.returncode == 0, run.err[-3000:]
    no_traceback(run)
    assert run.out.count("Type a number from 1 to") >= len(bad)
    assert "The reveal" in run.out and stored(db)[0] == "finished"


def test_end_of_input_hands_the_seat_to_an_ai_and_the_game_ends(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    run = shbot(tmp_path, *PLAY, "--db", str(db), stdin=b"2\n")
    assert run.proc.returncode == 0, run.err
    no_traceback(run)
    assert "Input closed: an AI plays your seat from now on." in run.out
    assert stored(db)[0] == "finished"


def test_input_that_ends_when_no_ai_can_take_the_seat_stops_the_game_saved(
    tmp_path: Path,
) -> None:
    """At the end of input an AI takes the seat; if that cannot be stored, nobody plays
    the seat of an untimed game: it stops, saved with the seat still the player's."""
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    with sqlite3.connect(db) as conn:  # the disk refuses the seat's change of hands
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON seat_changes"
            " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
    before = seats(db)
    run.close_stdin()  # Ctrl-D
    assert run.finish(timeout=10) == 1
    no_traceback(run)
    [line] = run.err.strip().splitlines()
    assert line.startswith("shbot: ") and "disk on fire" in line
    assert f"shbot play --db {db} --resume 1" in line and f"shbot cancel --db {db} 1" in line
    assert "an AI plays your seat from now on" not in run.out  # it does not
    assert stored(db)[0] == "running" and seats(db) == before

    with sqlite3.connect(db) as conn:  # the cause is fixed
        conn.execute("DROP TRIGGER refuse")
    again = Shbot(tmp_path, "play", "--resume", "1", "--db", str(db), stdin=ANSWERS)
    assert again.finish() == 0, again.err
    assert CHOICE in again.out and stored(db)[0] == "finished"


# --- a reader that goes away ------------------------------------------------------------


def test_shbot_demo_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, "demo", "--players", "5", "--agent", "random", "--speed", "normal",
                "--db", str(db))  # fmt: skip
    run.wait_for(" for President")  # `| head -3`: three lines, then the reader goes
    run.close_stdout()
    assert run.finish(timeout=5) != 0
    no_traceback(run)
    assert run.err == ""


def test_shbot_play_into_a_closed_pipe_ends_quietly_even_while_waiting_for_input(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)  # everything is printed; the game waits for the player
    run.close_stdout()
    assert run.finish(timeout=5) != 0  # no keypress needed to notice
    no_traceback(run)
    assert f"shbot play --db {db} --resume 1" in run.err and len(run.err.strip().splitlines()) == 1
    assert stored(db)[0] == "running"


def test_shbot_play_into_a_closed_pipe_ends_quietly_on_its_next_line(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    run.close_stdout()
    run.send(b"1\n")  # the answer makes the game go on and print
    assert run.finish(timeout=5) != 0
    no_traceback(run)
    assert f"shbot play --db {db} --resume 1" in run.err


def closed_streams(
    cwd: Path, fds: tuple[int, ...], *args: str
) -> subprocess.CompletedProcess[bytes]:
    """`shbot *args` with the standard streams `fds` closed (`shbot ... >&-`); the
    others piped (stdin empty)."""

    def close() -> None:
        as_from_a_terminal()
        for fd in fds:
            os.close(fd)

    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=cwd,
        env=_env(),
        preexec_fn=close,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("command", [PLAY, ("demo", "--players", "5", "--agent", "random")])
def test_a_game_with_its_output_closed_from_the_start_is_refused_in_one_line(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    db = tmp_path / "games.db"
    run = closed_streams(tmp_path, (1,), *command, "--db", str(db))
    err = run.stderr.decode()
    assert run.returncode == 1, err
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith("shbot: ") and "output" in line
    if db.exists():  # no game was started that nobody could follow
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_other_commands_work_with_a_standard_stream_closed(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    assert shbot(tmp_path, *PLAY, "--db", str(db), stdin=ANSWERS).proc.returncode == 0
    replay = closed_streams(tmp_path, (1,), "replay", "1", "--db", str(db))
    assert replay.returncode == 0 and replay.stderr == b""
    # Its errors have nowhere to go: only the status tells (never stdout instead).
    refused = closed_streams(tmp_path, (2,), "cancel", "7", "--db", str(db))
    assert refused.returncode == 1 and refused.stdout == b""
    played = closed_streams(tmp_path, (0,), *PLAY, "--db", str(db))  # no input: an AI plays
    assert played.returncode == 0 and b"Input closed" in played.stdout, played.stderr


def test_an_output_that_cannot_show_every_character_still_shows_every_line(
    tmp_path: Path,
) -> None:
    """A terminal or file in an encoding without "·" or "💬" (ASCII, a legacy code
    page): those characters show as "?", and no line is lost for them."""
    db = tmp_path / "games.db"
    env = {**_env(), "PYTHONIOENCODING": "ascii"}
    command = [sys.executable, "-m", "bot", "--db", str(db)]
    demo = subprocess.run(
        [*command, "demo", "--players", "5", "--agent", "random", "--seed", "4"],
        capture_output=True, cwd=tmp_path, env=env, timeout=30, check=False,
    )  # fmt: skip
    out = demo.stdout.decode("ascii")
    assert demo.returncode == 0 and demo.stderr == b"", demo.stderr
    assert "\nRound 1 ? " in out and "\nThe reveal\n" in out
    replay = subprocess.run(
        [*command, "replay", "1"], capture_output=True, cwd=tmp_path, env=env, timeout=30,
        check=False,
    )  # fmt: skip
    assert replay.returncode == 0 and replay.stderr == b"", replay.stderr
    assert "Game #1 ? 5 players" in replay.stdout.decode("ascii")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_ctrl_c_in_replay_step_ends_it_at_once(tmp_path: Path) -> None:
    """`shbot replay --step` waits for a key in a terminal: Ctrl-C there ends it at
    once, as its help says, without Enter and without a traceback."""
    import pty

    db = tmp_path / "games.db"
    assert shbot(tmp_path, *PLAY, "--db", str(db), stdin=ANSWERS).proc.returncode == 0
    leader, follower = pty.openpty()  # a terminal for all its standard streams
    run = subprocess.Popen(
        [sys.executable, "-m", "bot", "replay", "--step", "1", "--db", str(db)],
        stdin=follower, stdout=follower, stderr=follower, cwd=tmp_path, env=_env(),
        preexec_fn=as_from_a_terminal,
    )  # fmt: skip
    os.close(follower)
    shown = b""
    try:
        end = time.monotonic() + 20
        while b"q: quit" not in shown and time.monotonic() < end:
            if select.select([leader], [], [], 0.1)[0]:
                shown += os.read(leader, 65536)
        assert b"q: quit" in shown, shown[-500:]
        # Once it waits for the key: input() misses a signal that comes between its
        # prompt and its read (CPython's own race, far shorter than a person's reaction).
        time.sleep(0.5)
        run.send_signal(signal.SIGINT)  # as the terminal sends it for Ctrl-C
        code = run.wait(timeout=5)
        while select.select([leader], [], [], 0.1)[0]:
            try:
                shown += os.read(leader, 65536)
            except OSError:  # the terminal's other end has closed
                break
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        os.close(leader)
    assert code == 130 and b"Traceback" not in shown


# --- the database path ------------------------------------------------------------------


@pytest.mark.parametrize("command", [("demo", "--agent", "random"), ("play",), ("stats",)])
def test_a_db_path_inside_a_regular_file_is_one_clear_line(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    (tmp_path / "notes.txt").write_text("not a directory\n", encoding="utf-8")
    for db in (tmp_path / "notes.txt" / "x.db", tmp_path / "notes.txt" / "deeper" / "x.db"):
        run = shbot(tmp_path, *command, "--db", str(db), stdin=b"")
        assert run.proc.returncode == 1, run.err
        no_traceback(run)
        [line] = run.err.strip().splitlines()
        assert line.startswith("shbot: ") and "notes.txt" in line and "not a directory" in line


def test_a_db_path_nobody_may_write_is_one_clear_line(tmp_path: Path) -> None:
    places = [tmp_path]  # a directory, not a file
    if os.geteuid() == 0:  # root writes everywhere a mode allows; /proc refuses even root
        places.append(Path("/proc/shbot-test/x.db"))
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        places += [locked / "x.db", locked / "sub" / "x.db"]
    for db in places:
        run = shbot(tmp_path, "demo", "--agent", "random", "--db", str(db))
        assert run.proc.returncode == 1, run.err
        no_traceback(run)
        [line] = run.err.strip().splitlines()
        assert line.startswith("shbot: ") and str(db) in line


# --- a game stopped by a fault (item 9) ------------------------------------------------


def test_a_storage_fault_stops_the_game_with_a_non_zero_exit_and_it_resumes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    with sqlite3.connect(db) as conn:  # the disk refuses every further action
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON actions"
            " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
    run.send(b"1\n")
    assert run.finish(timeout=10) == 1
    no_traceback(run)
    [line] = run.err.strip().splitlines()  # one line: no log records, no traceback
    assert line.startswith("shbot: game #1 stopped on a fault")
    assert "disk on fire" in line and f"shbot play --db {db} --resume 1" in line
    status, reason, actions = stored(db)
    assert status == "paused" and reason

    with sqlite3.connect(db) as conn:  # the cause is fixed
        conn.execute("DROP TRIGGER refuse")
    again = Shbot(tmp_path, "play", "--resume", "1", "--db", str(db), stdin=ANSWERS)
    assert again.finish() == 0, again.err
    no_traceback(again)
    assert CHOICE in again.out
    status, reason, resumed = stored(db)
    assert status == "finished" and resumed > actions


# --- a stored game whose row does not read back ---------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        "{nope",  # not JSON
        '{"timers": 5}',  # JSON, but no timers
        '{"timers": {"vote": "soon"}}',
        '{"substitute": 5}',  # an agent that is no text
    ],
)
def test_resuming_a_game_whose_options_do_not_read_is_one_clear_line(
    tmp_path: Path, options: str
) -> None:
    db = tmp_path / "games.db"
    run = Shbot(tmp_path, *PLAY, "--db", str(db))
    run.wait_for(CHOICE)
    run.proc.send_signal(signal.SIGINT)
    assert run.finish(timeout=5) == 130
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET options = ?", (options,))
    before = stored(db)

    refused = shbot(tmp_path, "play", "--resume", "1", "--db", str(db))
    assert refused.proc.returncode == 1, refused.err
    no_traceback(refused)
    [line] = refused.err.strip().splitlines()
    assert line.startswith("shbot: ") and "#1" in line and "options" in line
    assert stored(db) == before  # the game as it was: nothing played, nothing lost


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", ["demo", "play"])
def test_an_output_that_fails_stops_the_game_saved_in_one_line(
    tmp_path: Path, command: str
) -> None:
    """A full disk under `shbot demo > file` (here /dev/full: every write fails with
    ENOSPC) gave a traceback, the game left running with no word of how to carry it on.
    It stops as when the output closes, and says why and how to resume."""
    db = tmp_path / "games.db"
    args = PLAY if command == "play" else ("demo", "--players", "5", "--agent", "random")
    with open("/dev/full", "wb") as full:
        run = subprocess.run(
            [sys.executable, "-m", "bot", *args, "--db", str(db)],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=_env(),
            timeout=30,
            check=False,
        )
    err = run.stderr.decode()
    assert run.returncode == 1 and "Traceback" not in err, err
    [line] = err.strip().splitlines()
    assert "No space left on device" in line and f"shbot {command} --db {db} --resume 1" in line
    assert stored(db)[0] == "running"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "command", [("stats",), ("replay", "1"), ("replay", "1", "--step"), ("cancel", "2")]
)
def test_a_command_whose_output_fails_says_so_in_one_line(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """`shbot stats > file` on a full disk was a traceback (or, for a short text, an
    "Exception ignored" at exit and status 0, as if it had been written)."""
    db = tmp_path / "games.db"
    demo = ("demo", "--players", "5", "--agent", "random", "--speed", "fast")
    assert shbot(tmp_path, *demo, "--db", str(db)).proc.returncode == 0
    run = Shbot(tmp_path, *PLAY, "--db", str(db))  # game #2, left running
    run.wait_for(CHOICE)
    run.proc.send_signal(signal.SIGINT)
    assert run.finish(timeout=5) == 130
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "bot", *command, "--db", str(db)],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=_env(),
            timeout=60,
            check=False,
        )
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err and "Exception" not in err, err
    [line] = err.strip().splitlines()
    assert line.startswith("shbot: ") and "No space left on device" in line, line


def test_a_demo_under_nohup_ignores_a_hangup(tmp_path: Path) -> None:
    """`nohup shbot demo &` asks for SIGHUP to be ignored (the terminal may close); the
    demo caught it all the same and stopped, saved, with status 129. It plays on."""
    db = tmp_path / "games.db"

    def as_nohup() -> None:
        as_from_a_terminal()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    demo = ("demo", "--players", "5", "--agent", "random", "--speed", "normal")
    run = subprocess.Popen(
        [sys.executable, "-m", "bot", *demo, "--db", str(db)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=_env(),
        preexec_fn=as_nohup,
    )
    try:
        time.sleep(2)  # under way: a paced demo takes some twenty seconds
        run.send_signal(signal.SIGHUP)
        time.sleep(1.5)
        assert run.poll() is None  # it plays on
        run.send_signal(signal.SIGTERM)  # not ignored: stops it, saved
        _, err = run.communicate(timeout=10)
    finally:
        run.kill()
    assert run.returncode == 128 + signal.SIGTERM, err.decode()
    assert stored(db)[0] == "running"


def test_a_game_cancelled_by_another_command_while_played_stops_and_says_so(
    tmp_path: Path,
) -> None:
    """`shbot cancel 1` while a demo plays game #1: the demo's next move was refused by
    the database, and it said "paused because of an internal error (StorageError)" and
    told how to resume a game that is cancelled. It says the game was cancelled."""
    db = tmp_path / "games.db"
    demo = ("demo", "--players", "5", "--agent", "random", "--seed", "4", "--db", str(db))
    run = Shbot(tmp_path, *demo, "--speed", "normal")
    run.wait_for(" for President")
    cancel = shbot(tmp_path, "cancel", "1", "--db", str(db))
    assert cancel.proc.returncode == 0, cancel.err
    assert run.finish(timeout=30) == 1
    no_traceback(run)
    assert "The game was cancelled elsewhere" in run.out
    assert "internal error" not in run.out and "--resume" not in run.err
    [line] = run.err.strip().splitlines()
    assert "game #1 was cancelled elsewhere" in line, line
    assert stored(db)[0] == "cancelled"
