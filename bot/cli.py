"""`shbot`: the command line.

With `DISCORD_TOKEN` set, `shbot` runs the Discord bot; without it, a spectated bot-only
demo game in the terminal. Subcommands play in the terminal (`demo`, `play`), carry on
or end a stored terminal game (`--resume ID`, `cancel ID`) and read the database
(`replay`, `stats`, `backup`). Every command uses the bot's database: `--db` (a file or a
`postgresql://` URL), else `$DATABASE_URL`, else `$DATABASE_PATH` (from the environment or
a `.env` file, as the bot reads them), else data/shbot.db in the working directory. `--images DIR`
(demo, play, replay) writes the game's pictures; `replay --step` walks a finished game
round by round.

Ctrl-C stops a terminal game at once, stored as it stands; so does an output that goes
away (`shbot play | head`). A game stopped by a fault (its storage failed) is stored as
paused; `shbot` then exits with status 1 and says how to carry it on. A terminal game
prints no log records unless `LOG_LEVEL` is set. A standard stream closed from the
start (`>&-`) stands for /dev/null; `demo` and `play` then refuse to start, unseen.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .errors import BotError  # no dependencies: cheap to import first
from .seat_names import ends_in_ai_mark

# The game's modules are imported when a command needs them: a Ctrl-C while Python starts
# then ends `shbot` quietly (status 130) rather than with a traceback from an import.
if TYPE_CHECKING:
    import asyncio

    from engine import Game

    from .session import GameSession
    from .storage import GameSummary, RatingRow, Storage, StoredGame
    from .suspicion import SuspicionTrack

log = logging.getLogger(__name__)

SPEEDS = {"fast": 0.0, "normal": 0.6}
DEFAULT_DB = "data/shbot.db"  # the same default as the Discord bot (bot.config)
DEFAULT_PACE_S = 1.5  # `shbot play`'s AI pace: the Discord bot's AI_PACE default (bot.config)
MAX_PACE_S = 60.0
MAX_NAME = 32  # `--name`: as long as a Discord display name may be
# A new game's options, applied after parsing: the parser's defaults are None, so that
# `--resume` can tell an option that was given (the stored game's own: refused).
DEFAULT_PLAYERS = 7
DEFAULT_AGENT = "belief"
DEFAULT_VARIANT = "standard"
DEFAULT_SEAT = 0
DEFAULT_NAME = "You"
# The options a stored game keeps (its dest: its flag); `--resume` takes them from it.
STORED_OPTIONS = {
    "players": "--players",
    "seat": "--seat",
    "seed": "--seed",
    "agent": "--agent",
    "variant": "--variant",
    "name": "--name",
}


def player_count(text: str) -> int:
    """`--players`: a whole number from 5 to 10 (argparse shows the message as is)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players.") from None
    if not 5 <= value <= 10:
        raise argparse.ArgumentTypeError("Secret Hitler takes 5 to 10 players.")
    return value


def player_name(text: str) -> str:
    """`--name`: one line of printable text, up to `MAX_NAME` characters, without its
    outer spaces, that does not end in an AI's mark "(AI)" (argparse shows the message
    as is). It is printed in every line that names the seat, and stored: a line break or
    a terminal escape would forge lines, and "Boris (AI)" would pass for an AI seat."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("your name cannot be blank.")
    if any("\ud800" <= char <= "\udfff" for char in name):  # argv bytes that are no UTF-8
        raise argparse.ArgumentTypeError("your name is not UTF-8 text.")
    if not name.isprintable():
        raise argparse.ArgumentTypeError("your name must be one line of printable characters.")
    if len(name) > MAX_NAME:
        raise argparse.ArgumentTypeError(f"your name may be {MAX_NAME} characters at most.")
    if ends_in_ai_mark(name):
        # An AI seat is labelled "Boris (AI)" (bot.manager): a person would pass for one.
        raise argparse.ArgumentTypeError(
            "your name may not end in (AI): that is how the AI players are labelled."
        )
    return name


def pace_seconds(text: str) -> float:
    """`--pace`: seconds from 0 to 60 (argparse shows the message as is)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds.") from None
    if not 0 <= value <= MAX_PACE_S:  # also refuses nan
        raise argparse.ArgumentTypeError(f"the pace lies between 0 and {MAX_PACE_S:g} seconds.")
    return value


def agent_spec(text: str) -> str:
    """`--agent`: an agent spec that can run here (argparse shows the message as is)."""
    from .demo import check_agent

    try:
        return check_agent(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


_AGENT_HELP = (
    "the AI players' agent: a name with an optional budget, e.g. selfish, belief, "
    f"ismcts:iterations=10000, belief-ismcts:seconds=2 (default: {DEFAULT_AGENT})"
)
_VARIANT_HELP = (
    "standard rules, or rebalanced (secrethitler.io's 6/7/9-player setups) "
    f"(default: {DEFAULT_VARIANT})"
)
_IMAGES_HELP = (
    "write PNG pictures into DIR (created if missing): the board after each policy, "
    "and at the end the board with every role and the suspicion chart"
)
_DESCRIPTION = """\
Secret Hitler for Discord, with AI players.

With DISCORD_TOKEN set (in the environment or a .env file) `shbot` runs the Discord
bot; without it, a bot-only demo game narrated here. The subcommands play in the
terminal, read the database and copy it. Every game is stored in the database.
"""
_EPILOG = """\
examples:
  shbot demo --players 10 --images pictures   watch 10 AI players, saving pictures
  shbot play --seat 2                          play seat 2 against 6 AI players
  shbot replay 3                               the story of game #3, and its reveal
  shbot backup backups/shbot-today.db          a safe copy, even while the bot runs

`shbot COMMAND --help` describes each command's options.
"""


def _subcommand(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    parent: argparse.ArgumentParser,
    summary: str,
    description: str,
) -> argparse.ArgumentParser:
    """A subcommand with a one-line summary (in `shbot --help`) and its own description."""
    return commands.add_parser(
        name,
        parents=[parent],
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _game_options(command: argparse.ArgumentParser) -> None:
    """The options `demo` and `play` share: players, seed, agent, variant (default None:
    `_new_game_defaults` fills them in for a new game; `--resume` refuses them)."""
    command.add_argument(
        "--players",
        type=player_count,
        default=None,
        metavar="5-10",
        help=f"number of players (default: {DEFAULT_PLAYERS})",
    )
    command.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="deal the same roles and deck again (default: a random seed, told at the end)",
    )
    command.add_argument("--agent", type=agent_spec, default=None, metavar="SPEC", help=_AGENT_HELP)
    command.add_argument(
        "--variant", choices=["standard", "rebalanced"], default=None, help=_VARIANT_HELP
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `shbot`."""
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="the database: a file, or a postgresql:// URL (default: $DATABASE_URL, else"
        f" $DATABASE_PATH, from the environment or .env, else {DEFAULT_DB})",
    )
    parser = argparse.ArgumentParser(
        prog="shbot",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        parents=[db],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")

    demo = _subcommand(
        commands,
        "demo",
        db,
        "watch a bot-only game in the terminal",
        "Watch AI players play a whole game, narrated as a spectator sees it (public\n"
        "events only), then the reveal: every role, hidden hand and lie, and how each AI\n"
        "read the table. Ctrl-C stops it, stored: `shbot demo --resume ID` carries on.",
    )
    _game_options(demo)
    demo.add_argument(
        "--speed",
        choices=sorted(SPEEDS),
        default=None,
        help="fast prints at once; normal pauses after each line to be followed "
        "(default: normal in a terminal, fast into a pipe or file)",
    )
    demo.add_argument(
        "--resume",
        type=int,
        metavar="GAME_ID",
        help="carry on a stopped demo game instead, with its own players, seed, agent and "
        "variant (--speed and --images apply)",
    )
    demo.add_argument("--images", metavar="DIR", default=None, help=_IMAGES_HELP)

    play = _subcommand(
        commands,
        "play",
        db,
        "play one seat against AI players",
        "Take one seat against AI players. Your role, hand and what your powers show\n"
        "are marked (private); each decision is a numbered list: type its number.\n"
        "There are no timers. If input ends, an AI plays your seat to the end. Ctrl-C\n"
        "stops the game, stored: `shbot play --resume ID` carries it on.",
    )
    _game_options(play)
    play.add_argument(
        "--seat",
        type=int,
        default=None,
        metavar="N",
        help=f"your seat, from 0 (default: {DEFAULT_SEAT})",
    )
    play.add_argument(
        "--name",
        type=player_name,
        default=None,
        help=f"your name at the table, up to {MAX_NAME} characters, not ending in (AI) as "
        f"the AI players' do (default: {DEFAULT_NAME})",
    )
    play.add_argument(
        "--resume",
        type=int,
        metavar="GAME_ID",
        help="carry on a stopped game instead, with the same seats, players, seed, agent, "
        "variant and name (--pace and --images apply)",
    )
    play.add_argument("--images", metavar="DIR", default=None, help=_IMAGES_HELP)
    play.add_argument(
        "--pace",
        type=pace_seconds,
        default=None,
        metavar="SECONDS",
        help="the AI's moves show no sooner than this, nor than its thinking budget, so "
        "how long it took does not tell what it holds; 0 shows them at once, and gives "
        f"that away (default: {DEFAULT_PACE_S}; with --resume, the stored game's)",
    )

    cancel = _subcommand(
        commands,
        "cancel",
        db,
        "end a stopped terminal game (never counted in stats)",
        "End a stopped terminal game for good: it is stored as cancelled, never\n"
        "resumed and never counted in stats; so is one whose stored record is damaged.\n"
        "Games in a Discord channel end with /cancel.",
    )
    cancel.add_argument("game_id", type=int, metavar="GAME_ID", help="the game's number")

    replay = _subcommand(
        commands,
        "replay",
        db,
        "show a stored game, and its reveal once it is over",
        "Show a stored game as the table saw it. Once it is over: the reveal too (every\n"
        "role, hidden hand and lie). A game still running keeps its secrets.",
    )
    replay.add_argument("game_id", type=int, metavar="GAME_ID", help="the game's number")
    replay.add_argument(
        "--step",
        action="store_true",
        help="a finished game round by round: what the table saw, the claims, the hidden "
        "truth, the board and the AI observer's belief (Enter: next, b: back, q: quit)",
    )
    replay.add_argument(
        "--images",
        metavar="DIR",
        default=None,
        help="write PNG pictures into DIR (created if missing): the board after each "
        "policy, and once the game is over the board with every role and the suspicion chart",
    )

    stats = _subcommand(
        commands,
        "stats",
        db,
        "rating ladder, or one player's record",
        "The rating ladder (people and AI strengths, openskill; every finished game)\n"
        "and the latest games, or one player's record and rating with --user.",
    )
    stats.add_argument(
        "--user",
        type=_user_id,
        default=None,
        metavar="ID",
        help="one player's record: their Discord user id (the terminal player is 1)",
    )

    backup = _subcommand(
        commands,
        "backup",
        db,
        "copy the database safely, even while the bot runs",
        "Write a consistent copy of the database to PATH with SQLite's backup API:\n"
        "safe while the bot or a game is running. Restore by pointing DATABASE_PATH\n"
        "(or --db) at the copy while the bot is stopped.",
    )
    backup.add_argument(
        "path",
        metavar="PATH",
        help="the copy's file (a new file, or an old copy it replaces; not the database)",
    )
    return parser


def database_path(args: argparse.Namespace) -> str:
    """`--db`, else `$DATABASE_PATH`, else data/shbot.db; its directory is created.

    Raises `StorageError` (one line, naming the cause) for a path that cannot hold a
    database: below a regular file, a directory, a folder that cannot be created.
    """
    from .storage import StorageError

    path = Path(getattr(args, "db", None) or _setting("DATABASE_PATH") or DEFAULT_DB)
    if str(path) == ":memory:":
        return str(path)
    cannot = f"Cannot use {path} as the database"
    for parent in path.parents:  # the nearest that exists must be a directory
        if parent.exists():
            if not parent.is_dir():
                raise StorageError(f"{cannot}: {parent} is not a directory.")
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = exc.filename or path.parent
        raise StorageError(f"{cannot}: cannot create {where} ({exc.strerror or exc}).") from exc
    if path.is_dir():
        raise StorageError(f"{cannot}: it is a directory; name a file in it.")
    if not path.exists() and not os.access(path.parent, os.W_OK | os.X_OK):
        raise StorageError(f"{cannot}: {path.parent} is not writable.")
    return str(path)


def _user_id(text: str) -> int:
    """`stats --user`: a Discord user id (a snowflake: a 64-bit signed integer's range,
    as the database stores it; a bigger one was an OverflowError traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text} is not a Discord user id (0 to 2^63 - 1)")
    return value


def database_target(args: argparse.Namespace) -> str:
    """The database every command opens, as the bot does: `--db` (a file, or a
    postgresql:// URL), else `$DATABASE_URL` (the shard processes' PostgreSQL database),
    else the SQLite file of `database_path`. Terminal games are stored there too, so
    `replay`, `stats` and `cancel` find them."""
    from .storage import StorageError, is_database_url

    given = getattr(args, "db", None)
    if given is not None:
        return str(given) if is_database_url(str(given)) else database_path(args)
    url = _setting("DATABASE_URL")
    if url is None:
        return database_path(args)
    if not is_database_url(url):  # the bot refuses it too (bot.config): say so the same way
        raise StorageError(
            "DATABASE_URL must be a postgresql:// URL (postgresql://user:password@host:5432/"
            "database); for a SQLite file set DATABASE_PATH instead."
        )
    return url


def _setting(name: str) -> str | None:
    """A variable of the environment, else of the `.env` file the bot reads (blank counts
    as unset, as in `bot.config`)."""
    from .config import settings

    return settings().get(name) or None


class PicturesError(BotError):
    """`--images DIR` names a place that cannot hold pictures; `str()` says why."""


def images_directory(args: argparse.Namespace) -> Path | None:
    """`--images DIR`, created if missing; None without the option. Checked before a
    game starts, so a bad directory costs no game (`PicturesError`, one line)."""
    if getattr(args, "images", None) is None:
        return None
    path = Path(args.images)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PicturesError(f"Cannot write pictures to {path}: {exc.strerror or exc}.") from exc
    if not os.access(path, os.W_OK | os.X_OK):
        raise PicturesError(f"Cannot write pictures to {path}: it is not writable.")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `shbot` console script."""
    try:
        closed = _standard_streams()
        _lenient_stdout()
        return _main(argv, closed)
    except KeyboardInterrupt:  # before a game's own Ctrl-C handling is in place
        return 130


def _standard_streams() -> set[str]:
    """Put /dev/null on each standard stream that was closed (`shbot ... >&-`); their
    names. Python leaves such a stream None, and its file descriptor free for the next
    file opened (a database, a worker's pipe) to take and be read or written as if it
    were the stream; and a print to a missing stderr would go to stdout."""
    closed = set()
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:  # the lowest free descriptor: `fd` itself, unless it was taken
            os.dup2(null, fd)
            os.close(null)
        # Open for the rest of the process, as the stream it stands for would be.
        setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115
        closed.add(name)
    return closed


def _lenient_stdout() -> None:
    """Print a character the output's encoding lacks ("·", "💬" in ASCII or a legacy code
    page) as "?": strict, the line failed whole (every round's header and the reveal of
    a game were lost, a replay ended in a traceback)."""
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors == "strict":
        sys.stdout.reconfigure(errors="replace")


def _main(argv: Sequence[str] | None, closed: AbstractSet[str] = frozenset()) -> int:
    from .config import ConfigError
    from .demo import NotHere
    from .storage import StorageError

    args = build_parser().parse_args(argv)
    try:
        if args.command is None:
            if _token_configured():
                return _discord(args)
            print("No DISCORD_TOKEN set: showing a bot-only demo game (see `shbot demo --help`).\n")
            args = build_parser().parse_args([*_db_args(args), "demo"])
        if "stdout" in closed and args.command in ("demo", "play"):
            # As when its reader leaves (`| head`), but before a game is started for nobody.
            closed_out = "shbot: the standard output is closed: nothing would show the game."
            print(closed_out, file=sys.stderr)
            return 1
        if args.command == "demo":
            return _demo(args)
        if args.command == "play":
            return _play(args)
        if args.command == "cancel":
            return _cancel(args)
        import asyncio

        pages = asyncio.run(_database_command(args))
        if pages:  # `replay --step`
            # Read keys outside the event loop: inside, Ctrl-C only cancels the loop's
            # task, which a blocking read never notices (it waited for Enter).
            step_through(pages, interactive=sys.stdin.isatty() and sys.stdout.isatty())
        return 0
    except (StorageError, NotHere, PicturesError, ConfigError) as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `shbot replay 1 | head`
        _silence_stdout()
        return 1
    except OutputFailed as exc:
        _tell(f"shbot: the output failed ({exc}).")
        _silence_stdout()
        return 1


def _db_args(args: argparse.Namespace) -> list[str]:
    return ["--db", args.db] if getattr(args, "db", None) else []


def _as_typed(args: Sequence[str]) -> str:
    """Arguments as a shell would take them back, each after a space (none: ""); a
    database URL's password left out (the hint lands in logs: `nohup`, CI)."""
    from .storage import is_database_url
    from .storage.postgres import redact

    shown = [redact(arg) if is_database_url(arg) else arg for arg in args]
    return "".join(f" {shlex.quote(arg)}" for arg in shown)


def _token_configured() -> bool:
    """Whether DISCORD_TOKEN is set, in the environment or in a `.env` file (a blank one
    is not, as `bot.config` reads it)."""
    if os.environ.get("DISCORD_TOKEN", "").strip():
        return True
    try:
        from .config import ConfigError, load_config
    except ImportError:
        return False
    try:
        return bool(load_config().discord_token)
    except ConfigError:
        return True  # a broken .env: `_discord` reports what is wrong with it


def _discord(args: argparse.Namespace) -> int:
    try:
        from .config import ConfigError, load_config
        from .discord.app import run
    except ImportError as exc:
        print(
            f"shbot: DISCORD_TOKEN is set, but the Discord front-end cannot start ({exc}). "
            "Run `shbot demo` to watch a bot-only game.",
            file=sys.stderr,
        )
        return 2
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"shbot: {exc}", file=sys.stderr)
        return 2
    given = getattr(args, "db", None)
    if given:
        from .storage import is_database_url

        if is_database_url(given):
            config = replace(config, database_url=given)
        else:
            config = replace(config, database_path=Path(given), database_url=None)
    import aiohttp
    import discord

    _quiet_voice_warnings()
    try:
        run(config)
    except discord.LoginFailure:
        print("shbot: Discord refused the token; check DISCORD_TOKEN.", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        print(f"shbot: cannot reach Discord ({exc}).", file=sys.stderr)
        return 1
    return 0


def _quiet_voice_warnings() -> None:
    """The bot never joins a voice channel, so discord.py's start-up warnings that voice
    support is missing ("PyNaCl is not installed", "davey is not installed") say nothing
    useful and alarm hosts: turned off (discord.py checks these flags once, at start)."""
    from discord.voice_client import VoiceClient

    VoiceClient.warn_nacl = False
    VoiceClient.warn_dave = False


def _demo(args: argparse.Namespace) -> int:
    from engine import Variant

    from .demo import resume_terminal, run_demo

    if _stored_options_given(args, "demo"):
        return 2
    _new_game_defaults(args)
    speed = args.speed or ("normal" if sys.stdout.isatty() else "fast")
    db_path = database_target(args)
    images = images_directory(args)
    if getattr(args, "resume", None) is not None:
        return _terminal_game(
            "demo",
            lambda stop: resume_terminal(
                args.resume,
                player=False,
                out=sys.stdout,
                delay=SPEEDS[speed],
                db_path=db_path,
                stop=stop,
                images=images,
            ),
            _db_args(args),
        )
    return _terminal_game(
        "demo",
        lambda stop: run_demo(
            args.players,
            args.seed,
            agent=args.agent,
            variant=Variant(args.variant),
            out=sys.stdout,
            delay=SPEEDS[speed],
            db_path=db_path,
            stop=stop,
            images=images,
        ),
        _db_args(args),
    )


def _terminal_game(
    command: str,
    play: Callable[[asyncio.Event], Awaitable[GameSession]],
    db: Sequence[str] = (),
) -> int:
    """Play a terminal game; Ctrl-C (SIGTERM, SIGHUP) stops it at once, stored as it stands.

    The exit status says how it ended: 0 over, 1 stopped by a fault or by the output
    going away, 128 + the signal's number if a signal stopped it (130 for Ctrl-C). Every
    way but the first leaves one line on stderr that tells how to carry the game on
    (none for a demo whose reader left: `| head`); it repeats the `--db` given (`db`:
    `_db_args`), without which it would name a game of another database."""
    import asyncio

    received: list[int] = []

    async def guarded() -> GameSession:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def stopped(signum: int) -> None:
            received.append(signum)
            stop.set()

        caught = []
        for signum in _STOP_SIGNALS:
            if signum == _HANGUP and signal.getsignal(signum) is signal.SIG_IGN:
                continue  # `nohup`: the terminal may close, the game plays on
            # (Not so for SIGINT: a shell without job control ignores it in whatever it
            # starts with `&`, and a signal sent to stop the game must still stop it.)
            try:
                loop.add_signal_handler(signum, stopped, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not here (Windows)
                continue
            caught.append(signum)
        try:
            return await play(stop)
        finally:
            for signum in caught:
                loop.remove_signal_handler(signum)

    from .errors import EndedElsewhere
    from .frontends.terminal import TerminalFrontend
    from .storage import StorageError

    _terminal_logging()
    session = asyncio.run(guarded())
    interrupted = 128 + received[0] if received else 0  # the shell's status for a signal
    game_id = session.game_id
    frontend = session.frontend
    broken = isinstance(frontend, TerminalFrontend) and frontend.broken
    if broken:
        _silence_stdout()
    where = _as_typed(db)
    resume = f"`shbot {command}{where} --resume {game_id}` carries it on"
    cancel = f"`shbot cancel{where} {game_id}` ends it"
    if session.game.is_over and interrupted and not broken:
        # Decided ahead of the narration: stored finished, every move of it kept.
        _tell(f"Game #{game_id} is over: `shbot replay{where} {game_id}` shows it.", newline=True)
        return interrupted
    if session.game.is_over:
        return 1 if broken else 0
    if isinstance(session.failure, EndedElsewhere):  # `shbot cancel` while it was played
        _tell(
            f"shbot: game #{game_id} was {session.failure.status} elsewhere while it was "
            f"played here: it stops."
        )
        return 1
    if session.paused or session.failure is not None:
        cause = session.pause_reason or type(session.failure).__name__
        detail = f": {session.failure}" if isinstance(session.failure, StorageError) else ""
        _tell(
            f"shbot: game #{game_id} stopped on a fault ({cause}{detail}). It is saved, "
            f"paused: {resume} once the cause is fixed; {cancel}."
        )
        return 1
    halt = frontend.halt if isinstance(frontend, TerminalFrontend) else None
    if halt is not None and not broken:
        _tell(
            f"shbot: game #{game_id} stopped: {halt}. It is saved: {resume} once the "
            f"cause is fixed; {cancel}."
        )
        return 1
    if broken:
        fault = frontend.output_fault if isinstance(frontend, TerminalFrontend) else None
        if fault is not None:  # not a reader who left: whoever expects the game hears why
            _tell(f"shbot: the output failed ({fault}); game #{game_id} is saved: {resume}.")
        elif command == "play":
            _tell(f"shbot: the output closed; game #{game_id} is saved: {resume}.")
        return 1
    _tell(f"Game #{game_id} is saved: {resume}; {cancel}.", newline=sys.stderr.isatty())
    return interrupted or 1


def _terminal_logging() -> None:
    """In a terminal game the CLI's own lines say what happened; the session's log
    records show only if `LOG_LEVEL` asks for them (as it does for the bot). Logging that
    is already set up (a test, a program that embeds `main`) is left alone."""
    root = logging.getLogger()
    if root.handlers:
        return
    level = os.environ.get("LOG_LEVEL", "").strip().upper()
    if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    else:
        root.addHandler(logging.NullHandler())  # not even Python's last-resort handler


# Ctrl-C, a `kill`, the terminal closing: each stops a terminal game, stored as it stands.
_HANGUP = getattr(signal, "SIGHUP", None)
_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _tell(line: str, *, newline: bool = False) -> None:
    """One line on stderr (after a newline: the terminal shows ^C where we were)."""
    with contextlib.suppress(OSError):  # stderr is gone too: nothing more to say
        print(("\n" if newline else "") + line, file=sys.stderr, flush=True)


class OutputFailed(Exception):
    """Writing a command's text failed (a full disk, an I/O error): the message says why."""


def _write(text: str, out: TextIO | None = None) -> None:
    """Print `text` to `out` (stdout) and flush it now: a write that fails does so here,
    as `OutputFailed`, not in the exit's flush, which only warns and still exits 0. A
    reader who left (`| head`) stays a BrokenPipeError."""
    try:
        print(text, file=out or sys.stdout, flush=True)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(exc.strerror or str(exc)) from None


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so exiting does not complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _play(args: argparse.Namespace) -> int:
    from engine import Variant

    from .demo import play_terminal, resume_terminal

    if _stored_options_given(args, "play"):
        return 2
    _new_game_defaults(args)
    if not 0 <= args.seat < args.players:
        print(
            f"shbot: seat {args.seat} does not exist with {args.players} players.", file=sys.stderr
        )
        return 2
    db_path = database_target(args)
    images = images_directory(args)
    if args.resume is not None:
        return _terminal_game(
            "play",
            lambda stop: resume_terminal(
                args.resume,
                player=True,
                out=sys.stdout,
                db_path=db_path,
                stop=stop,
                images=images,
                ai_pace_s=args.pace,  # None: the stored game's
            ),
            _db_args(args),
        )
    return _terminal_game(
        "play",
        lambda stop: play_terminal(
            args.players,
            args.seat,
            args.seed,
            agent=args.agent,
            name=args.name,
            variant=Variant(args.variant),
            out=sys.stdout,
            db_path=db_path,
            stop=stop,
            images=images,
            ai_pace_s=DEFAULT_PACE_S if args.pace is None else args.pace,
        ),
        _db_args(args),
    )


def _stored_options_given(args: argparse.Namespace, command: str) -> bool:
    """Whether `--resume` came with options that are the stored game's own (its seats,
    players, seed, agent, variant, name): if so, one line on stderr names them, and
    nothing starts. They used to be dropped without a word (`play --resume 3 --seat 2`
    carried on seat 0's game)."""
    if getattr(args, "resume", None) is None:
        return False
    given = [flag for dest, flag in STORED_OPTIONS.items() if getattr(args, dest, None) is not None]
    if not given:
        return False
    print(
        f"shbot: {', '.join(given)} {'is' if len(given) == 1 else 'are'} the stored game's: "
        f"`shbot {command}{_as_typed(_db_args(args))} --resume {args.resume}` carries it on"
        " as it was set up; "
        f"leave {'it' if len(given) == 1 else 'them'} out.",
        file=sys.stderr,
    )
    return True


def _new_game_defaults(args: argparse.Namespace) -> None:
    """Fill in a new game's options that were not given (the parser leaves them None)."""
    defaults = {
        "players": DEFAULT_PLAYERS,
        "agent": DEFAULT_AGENT,
        "variant": DEFAULT_VARIANT,
        "seat": DEFAULT_SEAT,
        "name": DEFAULT_NAME,
    }
    for dest, value in defaults.items():
        if hasattr(args, dest) and getattr(args, dest) is None:
            setattr(args, dest, value)


def _cancel(args: argparse.Namespace) -> int:
    import asyncio

    from .demo import cancel_terminal

    damage = asyncio.run(cancel_terminal(args.game_id, db_path=database_target(args)))
    if damage is not None:  # its record does not read back: it could never resume
        _write(
            f"Game #{args.game_id} was damaged ({damage}): it is now cancelled, never "
            "resumed and never counted in stats."
        )
        return 0
    _write(f"Game #{args.game_id} is cancelled: it never counts in stats and never resumes.")
    return 0


async def _database_command(args: argparse.Namespace) -> list[str]:
    """Run `replay`, `stats` or `backup`; the pages `replay --step` is to show (none for
    the others), for the caller to step through once the event loop has ended."""
    from .storage import Storage

    pages: list[str] = []
    async with await Storage.open(database_target(args)) as store:
        if args.command == "replay":
            images = images_directory(args)
            if args.step:
                pages = await replay_pages(store, args.game_id)
            else:
                _write(await replay_text(store, args.game_id))
            if images is not None:
                _write(await replay_pictures(store, args.game_id, images))
        elif args.command == "stats":
            _write(await stats_text(store, args.user))
        elif args.command == "backup":
            await store.backup(args.path)
            _write(f"Backed up {store.path} to {args.path}.")
    return pages


@contextlib.contextmanager
def _replaying(game_id: int) -> Iterator[None]:
    """Turn a stored record that no longer replays into `GameDamaged`, one line that
    names the action's index but not the action: a running game's may be a hand."""
    from engine import RecordError

    from .storage import GameDamaged

    try:
        yield
    except RecordError as exc:
        where = "its record" if exc.index is None else f"action {exc.index}"
        raise GameDamaged(game_id, f"{where} does not replay") from None


async def replay_text(store: Storage, game_id: int) -> str:
    """A stored game as the table saw it; once it is finished, the reveal too, with how
    the table and each AI player read the game (computed now, as the reveal did)."""
    import asyncio

    from .render import reveal_text
    from .render.story import Teller, short_names, story_lines

    stored = await store.load_game(game_id)
    with _replaying(game_id):
        game = stored.record.replay()
    labels = [f"{s.name} (seat {s.seat})" for s in stored.seats]
    out = [
        f"Game #{stored.id} · {game.players} players · {game.variant.name} rules · "
        f"{stored.status}" + (f" · seed {stored.record.seed}" if game.is_over else "")
        # the seed decides every role and the deck: only once the game is over
    ]
    teller = Teller(short_names(labels, [s.name for s in stored.seats]))
    out += story_lines((e for e in game.events if e.audience is None), teller)
    if stored.status == "finished" and game.is_over:
        tracks = await asyncio.to_thread(_suspicion, stored, game)
        out += ["", reveal_text(game.events, game.roles, labels, tuple(tracks))]
    else:  # hidden information stays hidden until the game has really ended
        out += ["", f"The game is {stored.status}: roles and hidden policies stay secret."]
    return "\n".join(out)


async def replay_pages(store: Storage, game_id: int) -> list[str]:
    """A finished game's step-through pages (`shbot replay --step`), one per round.

    Raises `NotHere` for a game that is not over: its hidden truth stays hidden."""
    import asyncio

    from .demo import NotHere
    from .render.steps import step_pages

    stored = await store.load_game(game_id)
    if stored.status != "finished":
        raise NotHere(
            f"game #{game_id} is {stored.status}: only a finished game is shown round by "
            f"round (`shbot replay {game_id}` shows what the table saw)."
        )
    names = [s.name for s in stored.seats]
    with _replaying(game_id):
        return await asyncio.to_thread(step_pages, stored.record, names)


def step_through(
    pages: Sequence[str],
    *,
    interactive: bool,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> None:
    """Show `pages` one at a time (Enter or n: next, b: back, q: quit, a number: that
    round), or, when not `interactive` (a pipe, a file), all of them one after another.
    Plain blocking reads: nothing else runs meanwhile, and Ctrl-C ends it at once."""
    out = out or sys.stdout
    if not interactive:
        _write("\n\n".join(pages), out)
        return
    index = 0
    while True:
        _write(f"\n{pages[index]}\n", out)
        try:
            answer = read(
                f"[{index}/{len(pages) - 1}] Enter: next · b: back · q: quit · N: round N > "
            )
        except EOFError:
            return
        answer = answer.strip().lower()
        if answer == "q":
            return
        if answer == "b":
            index = max(0, index - 1)
        elif answer.isdecimal() and int(answer) < len(pages):
            index = int(answer)
        elif index == len(pages) - 1:
            return  # past the last round: done
        else:
            index += 1


def _suspicion(stored: StoredGame, game: Game) -> list[SuspicionTrack]:
    """A finished game's suspicion tracks: the table's and each AI seat's, as the reveal
    computed them; none if the belief cannot run (the reveal goes on without)."""
    from .suspicion import suspicion_tracks

    names = [s.name for s in stored.seats]
    ai_seats = [s.seat for s in stored.seats if s.agent is not None]
    try:
        return suspicion_tracks(game, names, ai_seats)
    except Exception:
        log.warning("game %d: no suspicion tracks", stored.id, exc_info=True)
        return []


async def replay_pictures(store: Storage, game_id: int, directory: Path) -> str:
    """Write a stored game's pictures (`--images`): the board after each policy, and for
    a finished game the final board with every role and the suspicion chart (computed
    now, as the reveal did). Returns one line saying what was written."""
    import asyncio

    from .render.pictures import final_pictures, policy_board, policy_views

    stored = await store.load_game(game_id)
    names = [s.name for s in stored.seats]

    def draw() -> tuple[int, list[Path]]:
        boards = 0
        for view in policy_views(stored.record):
            policy_board(directory, game_id, view, names)
            boards += 1
        game = stored.record.replay()
        if stored.status != "finished" or not game.is_over:
            return boards, []  # the roles stay secret until the game has really ended
        tracks = _suspicion(stored, game)
        return boards, final_pictures(
            directory, game_id, game.spectator_view(), names, game.roles, tracks
        )

    with _replaying(game_id):
        boards, final = await asyncio.to_thread(draw)
    ending = f", then {', '.join(map(str, final))}" if final else ""
    return f"Pictures in {directory}: {boards} boards, one per policy{ending}."


LADDER_ROWS = 20  # `shbot stats`: the top of the rating ladder (every AI strength too)


async def stats_text(store: Storage, user_id: int | None) -> str:
    """One player's record and rating, or the rating ladder and the latest games."""
    from .ratings import human_key

    if user_id is not None:
        stats = await store.player_stats(user_id)
        roles = ", ".join(f"{role} {wins}/{games}" for role, (games, wins) in stats.by_role.items())
        out = [
            f"Player {user_id}: {stats.games} finished games, {stats.wins} wins "
            f"({stats.win_rate:.0%}). Wins by role: {roles}."
        ]
        standing = await store.player_rating(human_key(user_id))
        if standing is None:
            out.append("Rating: none yet (rated from the first game finished in a server).")
        else:
            row, rank, of = standing
            out.append(
                f"Rating: {row.rating.ordinal:.1f} (mu {row.rating.mu:.1f}, sigma"
                f" {row.rating.sigma:.1f}), #{rank} of {of} on the ladder."
            )
        out += [_summary(g) for g in stats.recent]
        return "\n".join(out)
    out = [
        "Rating ladder (people and AI strengths, every game finished in a server;"
        " mu - 3 sigma, a new player is 0):"
    ]
    out += _ladder_lines(await store.rating_ladder()) or ["  nobody has finished a game yet."]
    out.append("Latest games:")
    out += [_summary(g) for g in await store.recent_games(limit=10)] or ["  none yet."]
    games, fallbacks = await store.ai_fallbacks(None)
    if games:
        out.append(
            f"AI fallbacks (an AI seat answered by a stand-in): {fallbacks} in {games} games."
        )
    return "\n".join(out)


def ending_words(reason: str | None) -> str | None:
    """A stored win reason ("five_liberal") as the reveal says it ("Liberals win: five
    Liberal policies"); None for none, the stored text for a reason this version lacks."""
    from engine import WinReason

    from .render.text import ENDINGS

    if reason is None:
        return None
    try:
        return ENDINGS[WinReason(reason)]
    except ValueError:
        return reason.replace("_", " ")


def _ladder_lines(rows: list[RatingRow]) -> list[str]:
    """The top of the ladder, then any AI strength below it: one line each."""
    from .ratings import ai_label, spec_of

    strengths = _ai_strengths()
    shown = [
        (rank, row)
        for rank, row in enumerate(rows, 1)
        if rank <= LADDER_ROWS or row.user_id is None
    ]
    lines = []
    for rank, row in shown:
        spec = spec_of(row.player)
        who = ai_label(spec, strengths) if spec is not None else f"{row.name} (id {row.user_id})"
        seats = "seats" if spec is not None else "games"
        lines.append(
            f"  {rank:>3}. {row.rating.ordinal:6.1f}  {who}: {row.wins}/{row.games} {seats} won"
        )
    return lines


def _ai_strengths() -> Mapping[str, str]:
    """The configured AI strengths (strength -> agent spec) that name the ladder's AI
    players; the defaults when the configuration does not read."""
    from .config import Config, ConfigError, load_config

    try:
        return load_config().ai_specs
    except ConfigError:
        return Config().ai_specs


def _summary(game: GameSummary) -> str:
    ending = ending_words(game.reason)
    if ending is None and game.winner:
        ending = f"{game.winner.capitalize()}s win"
    return f"  #{game.id}: {game.players} players, {game.status}" + (
        f" · {ending}" if ending else ""
    )


if __name__ == "__main__":
    sys.exit(main())
