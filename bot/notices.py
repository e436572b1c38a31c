"""What a game session tells its table and its players, word for word.

The session says *what happened* (a seat timed out, a member stepped away, a prompt
closed because the game moved on); this module says how that reads, so that the words
live in one place and the front-ends can tell a reason apart by its constant
(`bot.discord.rounds.QUIET_REASONS`) rather than by a copy of its text. How prompts
read (questions and options) is `bot.wording`.
"""

from __future__ import annotations

# --- the table, when a game carries on --------------------------------------------------

RESTART_NOTICE = "The bot restarted: the game resumes where it stopped."
RESUME_NOTICE = "The game resumes where it stopped."

# --- why a prompt closes -----------------------------------------------------------------

CANCELLED = "The game was cancelled."

DONE = "Done."  # its seat answered
MOVED_ON = "The game has moved on."  # another seat's answer ended the decision
GAME_OVER = "The game is over."
SAID_NOTHING = "You said nothing."
CLAIM_MADE = "Your claim is made."
CLAIM_WINDOW_CLOSED = "The claim window is closed."
AI_DECIDES_HERE = "An AI decides for this seat."
AI_DECIDED = "An AI decided for you."
AI_PLAYS_NOW = "An AI plays your seat now."
TIME_UP = "Time is up: an AI decides for you this time."
AI_DECIDES_THIS_TURN = (
    "An AI is making this decision for you: your seat is yours again once it is made."
)

# --- a member stepping away and back (their reply; the table's notice) -------------------

ALREADY_AWAY = "An AI already plays for you. Type /back to take your seat back."
AWAY = "An AI plays your seat until you type /back."
ALREADY_BACK = "You already play your own seat."
WELCOME_BACK = "Welcome back: you decide again from your next decision."


def stepped_away(label: str) -> str:
    """An AI took the seat of a member who typed /afk."""
    return f"{label} stepped away: an AI plays for them until they are back."


def handed_over(label: str, by: str) -> str:
    """The host (or a moderator: `by`) handed a missing member's seat to an AI."""
    return f"An AI plays for {label}, handed over by {by}, until they type /back."


def came_back(label: str) -> str:
    """A member took their seat back."""
    return f"{label} is back and plays their own seat again."


def ended_elsewhere(status: str) -> str:
    """The game's record says it ended while this session played it: something else
    (another command, another process) ended it."""
    return f"The game was {status} elsewhere: it stops here."


def cancelled(reason: str) -> str:
    """The players (or a host) ended the game."""
    return f"The game was cancelled: {reason}"


def timed_out(label: str, times: int, *, handed_over: bool) -> str:
    """A human's clock ran out (`times` in a row); `handed_over`: the AI keeps the seat."""
    if handed_over:
        return (
            f"{label} ran out of time {times} times in a row: an AI plays for them until "
            "they type /back."
        )
    return f"{label} ran out of time: an AI decides for them this time."


def remark(name: str, words: str) -> str:
    """What an AI seat says to the table."""
    return f"💬 {name}: {words}"


def votes_in(voted: int, living: int, names: str) -> str:
    """Where a vote stands: how many ballots are in, who is still awaited."""
    return f"Votes: {voted} of {living} in. Waiting for {names}."


def waiting_for(names: str, to_do: str) -> str:
    """Whom the table waits for, to do what (`bot.wording.WAITING_FOR`)."""
    return f"Waiting for {names} to {to_do}."


# --- a paused game ----------------------------------------------------------------------

PAUSED = (
    "This game is paused because of an internal error. A host can type /resume to carry "
    "on, or /cancel to end it."
)


def paused_by_delivery(fault: str) -> str:
    """Paused because the table cannot be shown the game (a lost permission...)."""
    return (
        f"This game is paused: {fault} It goes on by itself once that is fixed; "
        "a host can also type /cancel to end it."
    )


def paused_by_error(error: str) -> str:
    """Paused by an internal error, named by its type only (its message may quote a secret)."""
    return (
        f"This game is paused because of an internal error ({error}). "
        "A host can type /resume to carry on, or /cancel to end it."
    )
