"""The board as a few lines of text: for the terminal and as the board image's alt text.

Only public facts of a view are read (never `seat`, `role`, `known_roles`, `hand`,
`my_vote`, `legal_actions`, `legal_claims` or `events`), so any seat's view and the
spectator's give the same text. The phrases here are shared with the board image, so
the picture and its alt text always say the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Phase, PlayerView, Power, WinReason
from engine.variants import CHAOS_AT, FASCIST_TO_WIN, HITLER_ZONE, LIBERAL_TO_WIN, VETO_AT

POWER_NAMES = {
    Power.INVESTIGATE: "Investigate",
    Power.SPECIAL_ELECTION: "Special election",
    Power.POLICY_PEEK: "Policy peek",
    Power.EXECUTION: "Execution",
}
ENDINGS = {
    WinReason.FIVE_LIBERAL: "Liberals win: five Liberal policies",
    WinReason.SIX_FASCIST: "Fascists win: six Fascist policies",
    WinReason.HITLER_ELECTED: "Fascists win: Hitler elected Chancellor",
    WinReason.HITLER_EXECUTED: "Liberals win: Hitler executed",
}
_ELECTION_PHASES = (Phase.NOMINATE, Phase.VOTE)


def slot_label(view: PlayerView, slot: int) -> str:
    """What Fascist slot `slot` (1..6) carries: a power, veto, the win, or ''."""
    if slot >= FASCIST_TO_WIN:
        return "Fascists win"
    power = view.powers[slot - 1] if slot <= len(view.powers) else None
    label = POWER_NAMES[power] if power is not None else ""
    if slot == VETO_AT:
        label = f"{label} + veto" if label else "Veto"
    return label


def status_line(view: PlayerView, names: Sequence[str]) -> str:
    """What the table is waiting for now (or how the game ended), in public terms."""
    president = names[view.president]
    chancellor = names[view.chancellor] if view.chancellor is not None else "?"
    match view.phase:
        case Phase.NOMINATE:
            return f"{president} to nominate a Chancellor"
        case Phase.VOTE:
            alive = sum(view.alive)
            return f"Vote on {president} + {chancellor}: {len(view.voted)}/{alive} voted"
        case Phase.PRESIDENT_DISCARD:
            return f"President {president} discards a policy"
        case Phase.CHANCELLOR_ENACT:
            return f"Chancellor {chancellor} enacts a policy"
        case Phase.VETO_REPLY:
            return f"President {president} answers a veto request"
        case Phase.INVESTIGATE:
            return f"President {president} investigates a player"
        case Phase.SPECIAL_ELECTION:
            return f"President {president} calls a special election"
        case Phase.EXECUTE:
            return f"President {president} executes a player"
    return ENDINGS[view.win_reason] if view.win_reason is not None else "Game over"


def seat_tags(view: PlayerView, seat: int) -> list[str]:
    """Public markers of one seat, most important first (e.g. 'President', 'Not Hitler')."""
    tags: list[str] = []
    electing = view.phase in _ELECTION_PHASES
    if not view.alive[seat]:
        tags.append("Executed")
    if seat == view.president and not view.is_over:
        tags.append("Candidate" if electing else "President")
    if seat == view.chancellor and not view.is_over:
        tags.append("Nominee" if electing else "Chancellor")
    if seat in view.term_limited:
        tags.append("Term-limited")
    if seat in view.not_hitler:
        tags.append("Not Hitler")
    if seat in view.investigated:
        tags.append("Investigated")
    if view.phase is Phase.VOTE and seat in view.voted:
        tags.append("Voted")
    return tags


def _track(enacted: int, slots: int, letter: str) -> str:
    return "".join(f"[{letter}]" if i < enacted else "[ ]" for i in range(slots))


def _player(view: PlayerView, names: Sequence[str], seat: int) -> str:
    tags = seat_tags(view, seat)
    return f"{seat} {names[seat]}" + (f" ({', '.join(tags)})" if tags else "")


def board_text(view: PlayerView, names: Sequence[str]) -> str:
    """The public board as a few monospace-friendly lines (names indexed by seat)."""
    if len(names) != view.players:
        raise ValueError(f"{view.players} players but {len(names)} names")
    ahead = [
        f"{slot} {label.lower()}"
        for slot in range(view.fascist_policies + 1, FASCIST_TO_WIN)
        if (label := slot_label(view, slot))
    ]
    fascist = f"Fascist  {_track(view.fascist_policies, FASCIST_TO_WIN, 'F')}"
    fascist += f"  {view.fascist_policies}/{FASCIST_TO_WIN}"
    if ahead:
        fascist += f"  ahead: {', '.join(ahead)}"
    if view.fascist_policies >= HITLER_ZONE:
        fascist += "  (Hitler zone: electing Hitler Chancellor wins)"
    veto = "veto unlocked" if view.veto_unlocked else "veto locked"
    players = "; ".join(_player(view, names, seat) for seat in range(view.players))
    return "\n".join(
        (
            f"Secret Hitler · {view.players} players · {view.variant} rules · "
            f"{status_line(view, names)}",
            f"Liberal  {_track(view.liberal_policies, LIBERAL_TO_WIN, 'L')}"
            f"  {view.liberal_policies}/{LIBERAL_TO_WIN}",
            fascist,
            f"Election tracker {view.election_tracker}/{CHAOS_AT} · draw pile {view.draw_pile}"
            f" · discard pile {view.discard_pile} · {veto}",
            f"Players: {players}",
        )
    )
