"""Every sentence the Discord front-end says, in one place (format fields in braces)."""

from __future__ import annotations

from .. import notices

# --- lobby ---------------------------------------------------------------------------
LOBBY_TITLE = "Secret Hitler: a new table"
LOBBY_INTRO = "Press **Join** to take a seat. The host presses **Start** when everyone is in."
LOBBY_STARTED = "The game has started: this lobby is closed."
LOBBY_OPENED = "Your table is open: the lobby is below."
LOBBY_CANCEL_DONE = "Done: the lobby is closed."
LOBBY_CANCELLED = "This lobby was cancelled by {by}."
LOBBY_EMPTY_CLOSED = "Everyone left: this lobby is closed."
LOBBY_EXPIRED = "Nobody touched this lobby for an hour: it is closed. /newgame opens another."
LOBBY_SEATS = "Seats ({count}/{max})"
LOBBY_NOBODY = "Nobody yet."
LOBBY_FILL_NOTE = "{count} AI player(s) will fill the empty seats at the start."
LOBBY_HOST_MARK = " (host)"
LOBBY_OPTIONS = "Options"
LOBBY_OPTIONS_TEXT = (
    "Rules: **{variant}** · Table: **{size}** · AI strength: **{strength}** · "
    "Fill with AI: **{fill}** · AI talk: **{talk}**\n"
    "Timers: **{turn}s** per turn, **{vote}s** per vote"
)
BUTTON_JOIN = "Join"
BUTTON_LEAVE = "Leave"
BUTTON_ADD_AI = "Add AI"
BUTTON_START = "Start"

JOINED = "You joined the table (seat {seat})."
LEFT = "You left the table."
AI_ADDED = "An AI player ({strength}) takes seat {seat}."
KICKED = "Seat {seat} ({name}) was removed from the table."
ALREADY_IN_LOBBY = "You are already at this table."
NOT_IN_LOBBY = "You are not at this table."
LOBBY_FULL = "The lobby is full ({max} players)."
HOST_ONLY = "Only the host, {host}, can {act}."
ACT_START = "start the game"
ACT_ADD_AI = "add AI players"
ACT_KICK = "remove players"
ACT_CANCEL = "cancel the lobby"
NO_SUCH_SEAT = "There is no seat {seat}: the table has {seats} seat(s)."
CANNOT_KICK_SELF = "You cannot remove yourself; use /leave (the next player becomes host)."
KICK_WHO = "Say who to remove: a `player`, or the `seat` number shown on the lobby."
TOO_FEW = (
    "{have} seat(s) taken: a game needs at least {min}. Add {missing} more "
    "(Join, Add AI), or open a lobby that fills empty seats with AI."
)
BAD_VARIANT = "Unknown rules; choose from {choices}."
BAD_STRENGTH = "Unknown AI strength; choose from {choices}."
BAD_SIZE = "A table has {low} to {high} players."

NO_LOBBY_HERE = "There is no open lobby in this channel. Start one with /newgame."
LOBBY_ALREADY_HERE = "There is already an open lobby in this channel: {link}"
LOBBY_HERE_NO_DEMO = "A lobby is open in this channel; start or cancel it first."
LOBBY_NOT_POSTED_FORBIDDEN = (
    "No lobby was opened: Discord refused to let the bot post the lobby in this channel. "
    "A server admin can check the bot's permissions here, then try /newgame again."
)
LOBBY_NOT_POSTED = (
    "No lobby was opened: Discord did not accept the lobby message (a hiccup on its side). "
    "Try /newgame again in a moment."
)
LOBBY_NOT_POSTED_NETWORK = (
    "No lobby was opened: the connection to Discord failed while posting it. If a lobby "
    "message shows up anyway, its buttons do nothing. Try /newgame again in a moment."
)
LOBBY_NOT_STORED = (
    "No lobby was opened: the bot's database refused to store it (a problem on our side). "
    "Try /newgame again in a moment."
)
LOBBY_NOT_STORED_CLOSED = "This lobby could not be stored, so it is closed. Try /newgame again."
GAME_ALREADY_HERE = "A game is already running in this channel; /status shows it."
GAME_JUST_ENDED = (
    "The last game here has just ended and its reveal is on its way: open the next one in a moment."
)
GAME_END_NOT_STORED = (
    "The last game here is over, but its end could not be stored, so it is paused: its host "
    "can type /cancel (or /resume) to store it, with its result; then a new game can open."
)
DEMO_COOLDOWN = "A demo was started here a moment ago; the next one can start {when}."
DEMO_LIMIT = "{limit} demo games already run in this server; wait for one to end."
SERVER_FULL = (
    "{limit} games already run in this server, the most it runs at once; start this one"
    " when one of them ends (the lobby stays open)."
)
GUILD_ONLY = "This command works in a server channel, not in direct messages."
MISSING_HERE = (
    "A game cannot run in this channel: the bot lacks **{names}** here. A server admin "
    "can grant them (the channel's settings, Permissions), then try again."
)

# --- components ----------------------------------------------------------------------
THREAD_LOCKED = (
    "This thread is locked, so the bot cannot post the game in it: unlock it (or give the"
    " bot Manage Threads), or play in another channel."
)
THREAD_ADD_BOT = (
    "The bot is not in this private thread, so it cannot post the game here: add it to the"
    " thread (mention it in the thread), then try again."
)
THREAD_BOT_REMOVED = (
    "The bot is not in the private thread {where}: add it to the thread (mention it"
    " there) to carry on."
)
# A game's thread closed mid-game (the reasons it pauses for: `delivery.translate_for`).
THREAD_LOCKED_MIDGAME = (
    "The thread {where} is locked: a moderator (Manage Threads) can unlock it to carry on."
)
THREAD_ARCHIVED = "The thread {where} is archived: reopen it to carry on."
THREAD_CLOSED = (
    "The thread {where} is archived and the bot may not reopen it (a moderator locked"
    " it, or the bot lacks Send Messages in Threads there): reopen it to carry on."
)
STALE_LOBBY = "This lobby is closed (the game started or the lobby was cancelled)."
UNKNOWN_COMPONENT = (
    "This button comes from an older version of the bot and no longer works. "
    "Use /status to see what is going on in this channel."
)
NOT_READY = "The bot is still starting up; try again in a few seconds."
SOMETHING_WRONG = "Something went wrong on our side; the game is unchanged. Try again."

# --- information commands ------------------------------------------------------------
RULES_TITLE = "Secret Hitler: the rules in short"
RULES = (
    (
        "Teams",
        "Liberals are the majority but know nobody. Fascists know each other and Hitler; "
        "Hitler knows the Fascists only at 5-6 players. Nobody's role is public until the end.",
    ),
    (
        "A round",
        "The presidential candidate nominates a chancellor (not the last elected government; "
        "with 5 alive only the last chancellor is term-limited). Everyone alive votes Ja or "
        "Nein at once; more than half Ja elects. A failed vote moves the election tracker; "
        "at 3 the top policy is enacted by chaos.",
    ),
    (
        "Legislating",
        "The president draws 3 policies and discards 1 face down; the chancellor discards 1 "
        "and enacts the other. Discards are secret: what anyone says about them is a claim. "
        "Once 5 Fascist policies are on the board the chancellor may propose a veto.",
    ),
    (
        "Powers",
        "Fascist policies give the president powers: investigate a player's party, peek at "
        "the next 3 policies, choose the next candidate (special election), execute a player.",
    ),
    (
        "Winning",
        "Liberals: 5 Liberal policies, or Hitler executed. Fascists: 6 Fascist policies, or "
        "Hitler elected chancellor once 3 Fascist policies are on the board.",
    ),
    (
        "Playing here",
        "/newgame opens a table; Join, then the host presses Start. Secrets (your role, your "
        "hand, a peek) come as messages only you can see: press the button in the prompt "
        "that names you. /role shows your role again, /afk hands your seat to an AI, /back "
        "takes it back.",
    ),
)
SHOWN_BELOW = "Posted below for everyone in this channel."
HISTORY_TITLE = "Recent games"
HISTORY_EMPTY = "No games have been played here yet. Start one with /newgame."
HISTORY_LINE = "`#{id}` {players} players · {outcome} · {when}"
OUTCOME_RUNNING = "in progress"
OUTCOME_CANCELLED = "cancelled"
OUTCOME_PAUSED = "paused"
OUTCOME_ABANDONED = "abandoned (the bot could no longer show it)"
OUTCOME_DAMAGED = "not restored (its stored record is damaged)"
OUTCOME_WON = "{winner} won ({reason})"
REASONS = {
    "five_liberal": "five Liberal policies",
    "six_fascist": "six Fascist policies",
    "hitler_elected": "Hitler elected chancellor",
    "hitler_executed": "Hitler executed",
}
STATS_TITLE = "{name}'s record"
STATS_NONE = "{name} has not finished a game here yet."
STATS_BODY = "**{games}** games · **{wins}** wins · **{rate:.0%}** win rate"
STATS_ROLE = "{role}: {wins}/{games}"
LEADERBOARD_TITLE = "Rating ladder"
LEADERBOARD_EMPTY = "Nobody has finished a game here yet."
AI_FALLBACKS_NAME = "AI players"
AI_FALLBACKS = "{fallbacks} decision(s) answered by a stand-in in {games} finished game(s)."
# The ladder people and AI strengths share (bot.ratings): a rank, the conservative rating
# (mu - 3 sigma), who, and their rated games (an AI strength's seats).
LEADERBOARD_LINE = "`{rank:>2}` **{rating:.1f}** <@{user_id}> · {wins}/{games} wins"
LEADERBOARD_AI_LINE = "`{rank:>2}` **{rating:.1f}** {label} · {wins}/{games} seats won"
LEADERBOARD_GAP = "…"
LEADERBOARD_FOOTER = (
    "Rating: skill minus 3 times its uncertainty (openskill), 0 for a new player; it rises"
    " with wins and with games. People and each AI strength share one ladder across"
    " servers; this server's players are shown."
)
PROFILE_TITLE = "{name}'s profile"
PROFILE_RATING = (
    "Rating **{rating:.1f}** (skill {mu:.1f} ± {sigma:.1f}) · #{rank} of {of} on the ladder"
)
PROFILE_UNRATED = "{name} is not rated yet: the rating starts with the first finished game."
PROFILE_RECORD_NAME = "Games seen here"
PROFILE_RECORD = "**{games}** games · **{wins}** wins · **{rate:.0%}** win rate"
PROFILE_ROLES_NAME = "Wins by role"
SETTINGS_TITLE = "Defaults for new tables in this server"
SETTINGS_SAVED = "Saved. New tables in this server start with these options."
SETTINGS_NEED_MANAGE = "Only members with the Manage Server permission can change the defaults."

# --- playing ---------------------------------------------------------------------------
BUTTON_ROLE = "Show my role"
BUTTON_SEEN = "Show what you saw"
BUTTON_HAND = "Open your hand"
BUTTON_END_GAME = "End the game"
PICK_NOMINEE = "Choose your chancellor"
PICK_TARGET = "Choose a player"
PICK_CLAIM = "Choose what to say"
ROLES_DEALT = "Roles are dealt. Press **Show my role** to see yours (only you will see it)."
PROMPT_NOMINATE = "{who}, you are the presidential candidate: nominate a chancellor."
PROMPT_INVESTIGATE = "President {who}: investigate a player's loyalty (only you will see it)."
PROMPT_SPECIAL = "President {who}: choose the next presidential candidate."
PROMPT_EXECUTE = "President {who}: execute a player."
PROMPT_SESSION = (
    "Legislative session: President {president} discards one of three policies, then "
    "Chancellor {chancellor} enacts one of the two left. Open your hand when it is yours."
)
PROMPT_VETO_REPLY = "President {who}: Chancellor {chancellor} proposes to veto this agenda. Agree?"
PROMPT_CLAIM_SESSION = (
    "{who}: you may tell the table what you saw in the legislative session "
    "(optional, and you may lie)."
)
PROMPT_CLAIM_PEEK = "{who}: you may tell the table what the peek showed (optional; you may lie)."
PROMPT_CLAIM_PROBE = (
    "{who}: you may tell the table what you saw of {target} (optional; you may lie)."
)
PROMPT_DEADLINE = " Time runs out {when}."
PROMPT_CLOSED = "{text}\n> {reason}"
CHANNEL_DELETED = "Its channel was deleted."
SERVER_LEFT = "The bot is no longer in its server."
CLOSED_BY_RESTART = "Closed: the game moved on while the bot restarted."
CLOCK_RESET = "{who}: the bot restarted and your clock starts again; your choice is above."
NO_PERMISSION_NOTE = (
    "The bot lacks **{permission}** in this channel: the game goes on in text only. "
    "A server admin can grant it."
)
GAME_BLOCKED = (
    "Game #{game} is paused: {why} It goes on by itself once that is fixed; the host "
    "can also type /cancel there to end it."
)
# The live board's status line (`bot.discord.board`): the election, the tracks, whose turn.
BOARD_STATUS = (
    "**Election {election}** · Liberal **{liberal}**/{liberal_goal} · "
    "Fascist **{fascist}**/{fascist_goal} · failed elections {tracker}/{chaos} · "
    "draw pile {pile}"
)
BOARD_TURN = "⏳ {waiting}"
BOARD_NO_STORY = "The game goes on."
VOTE_HEADER = "**Vote**: President {president}, Chancellor {chancellor}. {mentions}"
VOTE_PROGRESS = "Voted ({count}/{living}): {voted}"
VOTE_WAITING = "Waiting for: {names}"
VOTE_CLOSED = "**Vote closed.** {result}"
VOTED = "Your vote is in: **{ballot}**. You can change it until the last vote is in."
CHOSEN = "Done: {label}."
CLAIM_SILENT = notices.SAID_NOTHING
NOT_A_PLAYER = "You are not playing in this game; you can watch it here."
NOT_YOUR_PROMPT = "This choice is for {label}, not for you."
NOT_YOUR_HAND = "This hand belongs to {label}; only they can open it."
AI_PLAYS_YOUR_SEAT = "An AI plays your seat now. Type /back to take it back."
ASK_NO_SEAT = "There is no seat {seat} at this table (seats 0 to {last})."
ASK_NOT_AI = "{label} is not an AI player: ask them yourself."
ASK_STANDING_IN = (
    "An AI plays {label} while its player is away, and does not speak for them:"
    " it knows what they saw. Ask them when they are back."
)
ASK_TALK_OFF = "The AI players at this table keep quiet (the host turned talk off)."
ASK_SAID = "💬 {name}: {words}"
ASK_NOTHING = "I have nothing to say yet."
ASK_SENT = "You asked {name}: the answer is below."
ASK_PLAYERS_ONLY = "Only the players of this game can /ask its AI players; you can watch it here."
ASK_MEMBER_COOLDOWN = "You asked an AI player a moment ago; you can /ask again {when}."
ASK_CHANNEL_COOLDOWN = "An AI player here was asked a moment ago; the next /ask can be {when}."
ASK_FAILED = (
    "That AI player could not answer just now; the game is unchanged. Try /ask again in a moment."
)
ASK_NOT_POSTED = (
    "The answer could not be posted here (Discord or the connection to it failed), so it "
    "may be missing. You can /ask again once the channel's turn comes round."
)
HAND_EMPTY = "You hold no policies now: the game has moved on."
HAND_NOT_YET = "Not yet: the President still holds the policies. Your hand comes next."
HAND_COMING = "Your policies are on their way: open your hand again in a moment."
HAND_NOT_IN_GOVERNMENT = "Only the President and the Chancellor hold policies."
HAND_READY = "Game #{game}: the President passed you two policies. Open your hand in <#{channel}>."
# A decision edited into an earlier message (an edit notifies nobody) is told by one short
# line that pings its member and links to it; it says only what that message shows.
PING_CALL = "{who}: {what} → {link}"
PING_NOMINATE = "your turn to nominate a chancellor"
PING_POWER = "your turn to use the presidential power"
PING_HAND = "your turn to open your hand"
PING_VETO = "your answer to the veto"
PING_CLAIM = "you may make your claim"
DEAD = "You are dead: the dead take no part in the game."
GAME_OVER = "This game is over."
GAME_CANCELLED = "This game was cancelled."
GAME_NOT_RUNNING = "This game is not running any more."
GAME_DAMAGED = (
    "This game could not be restored after a restart: its stored record is damaged, so it"
    " ended without a result. Start a new one with /newgame."
)
SET_ASIDE = (
    "Game #{game_id} could not be restored after the bot restarted: its stored record is"
    " damaged ({reason}). It has ended without a result. Start a new one with /newgame."
)
GAME_ABANDONED = (
    "This game was abandoned: the bot could no longer show it here. Start a new one with /newgame."
)
GAME_PAUSED = (
    "This game is paused because of an internal error. The host or a member with Manage "
    "Server can type /resume to carry on, or /cancel to end it."
)
NOTHING_PAUSED = "No game is paused in this channel: there is nothing to resume."
RESUME_RIGHTS = "Only the host of this game or a member with Manage Server can resume it."
RESUMED = "Done: the game resumes where it stopped."
RESUME_FAILED = "The game could not be resumed; it stays paused. /cancel ends it."
STATUS_CLAIMS = "Waiting for the claims of {names}."
STATUS_PAUSED = "**Paused** because of an internal error: /resume carries on, /cancel ends it."
# /status in a channel whose latest game ended without being played to its end.
STATUS_SET_ASIDE = (
    "No game is running in this channel. Game #{game_id} could not be restored after the bot"
    " restarted: its stored record is damaged, so it was set aside without a result. Start a"
    " new one with /newgame."
)
STATUS_ABANDONED = (
    "No game is running in this channel. Game #{game_id} was abandoned: the bot could no"
    " longer show it here, so it ended without a result. Start a new one with /newgame."
)
NO_GAME_HERE = "No game is running in this channel. Start one with /newgame."
NO_GAME_FOR_YOU = "You are not playing in a game in this channel."
CANCEL_ASK = (
    "{who} wants to end this game without a winner. Players: press **End the game** "
    "to agree ({count}/{needed} so far)."
)
CANCEL_ASKED = "Your request is recorded: the players decide with **End the game**."
CANCEL_NOT_RECORDED = (
    "Your request to end the game could not be recorded (the database failed), so nobody "
    "was asked and the game goes on. Try /cancel again in a moment."
)
CANCEL_NOT_SHOWN = (
    "Your request is recorded, but Discord refused to post it here, so the players cannot "
    "agree to it. Try /cancel again in a moment."
)
CANCEL_MAYBE_NOT_SHOWN = (
    "Your request is recorded, but the connection to Discord failed while posting it, so "
    "it may not be shown here. If you cannot see it, try /cancel again in a moment."
)
CANCEL_AGREED = "You agreed to end the game ({count}/{needed})."
CANCEL_AGREE_NOT_RECORDED = (
    "Your agreement could not be recorded (the database failed), so it does not count. "
    "Press **End the game** again in a moment."
)
CANCEL_AGREE_NOT_RECORDED_REPLACED = (
    "Your agreement could not be recorded (the database failed), so it does not count, and "
    "a newer /cancel was asked meanwhile: press **End the game** on the latest request."
)
CANCEL_ALREADY = "You already agreed ({count}/{needed})."
CANCEL_REASON = "the players agreed to end it."
CANCEL_NOT_ASKED = (
    "Nobody has asked to end this game now, so this button counts for nothing. The host "
    "or a member with Manage Server can ask with /cancel."
)
CANCEL_STALE = (
    "This request to end the game was replaced by a newer /cancel: press **End the game** "
    "on the latest request."
)
CANCEL_ONLY_PLAYERS = "Only the players of this game can agree to end it."
CANCEL_RIGHTS = "Only the host of this game or a member with Manage Server can cancel it."
HAND_OVER_RIGHTS = (
    "Only the host of this game or a member with Manage Server can hand another player's seat "
    "to an AI. /afk alone hands over your own."
)
HAND_OVER_NO_SEAT = "{name} has no seat in this game."
HANDED_OVER = "An AI plays {name}'s seat now; they take it back with /back."
HAND_OVER_ALREADY = "An AI already plays {name}'s seat."
HAND_OVER_PRESENT = (
    "{name} is playing: a seat is handed to an AI only once its player's time ran out "
    "(they can type /afk themselves)."
)
CANCEL_HOST_ALONE = "the host ended it."
CANCEL_FAILED = "The game could not be cancelled now (the database refused); try again later."
END_STORED = (
    "This game was won before it paused, so it is not cancelled: its end is stored now, with "
    "its result, and the channel is free."
)
END_STORED_TABLE = "The game's end is stored, with its result: this channel is free for /newgame."
END_NOT_STORED = (
    "The game is over, but its end still could not be stored (the database refused): it stays "
    "paused. Try /cancel or /resume again later."
)
CANCEL_RESUMED_MEANWHILE = (
    "The game was resumed just before your /cancel, so it goes on. /cancel again to end it."
)
CANCEL_VOTE_FAILED = (
    "The game could not be ended just now, so it goes on and your agreement was not "
    "counted. Press **End the game** again to retry."
)
DEMO_STARTING = "Your demo game is starting below."
DEMO_STARTED = "A demo game starts here: {players} AI players. Sit back and watch."
ROLE_LINE = "Your role: **{role}**."
ROLE_HITLER_KNOWS = "The Fascist(s): {names}."
ROLE_HITLER_BLIND = "You do not know who the Fascists are."
ROLE_FASCIST_KNOWS = "Hitler: {hitler}. Fascists: {fascists}."
ROLE_LIBERAL = "You know nobody else's role."
SEEN_HEADER = "What you saw:"
SEEN_PEEK = "- The top of the pile was {tiles} (top first)."
SEEN_PROBE = "- {target} is a **{party}**."
DM_CLOSED_NOTE = "dm closed for a seat of game %s"

# --- /replay: a finished game, round by round -----------------------------------------
REPLAY_TITLE = "Game #{game}: the deal"
REPLAY_ROUND_TITLE = "Game #{game}: round {round} of {rounds}"
REPLAY_FOOTER = (
    "Everything is shown: roles, hands, peeks and investigations. The AI observer's "
    "belief reads the public events only (darker: more likely Fascist)."
)
REPLAY_UNKNOWN = "There is no game #{game} in this server."
REPLAY_NOT_OVER = "Game #{game} is {status}: a game is shown round by round once it is over."
REPLAY_DAMAGED = "Game #{game} cannot be shown: its stored record does not replay."
BUTTON_PREVIOUS = "◀ Previous"
BUTTON_NEXT = "Next ▶"

# --- /cancel: agreements whose store is in flight -------------------------------------
CANCEL_AGREE_PENDING = (
    "Your agreement is still being recorded: your first press will tell you whether it counts."
)
CANCEL_GAME_OVER = "This game is over: there is nothing left to agree to."
