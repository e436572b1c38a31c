"""The names seats go by at the table: an AI seat's mark, and a member's name kept from
passing for one.

An AI seat beside people is labelled "Boris (AI)". A person's name is their own choice
(a Discord display name, the terminal's `--name`), so "Boris (AI)" could be one: a
member who passes for an AI player at a table of people is a lie the bot would tell
for them. The terminal refuses such a name; a Discord member is seated without the mark.
"""

from __future__ import annotations

import unicodedata

AI_MARK = " (AI)"
_MARK_LOOK = "(ai)"  # the mark as `looks_like` reads it
UNNAMED = "Player"  # a member whose name was nothing but the mark
# Characters that show nothing although Unicode calls them letters or symbols: Hangul
# fillers, the halfwidth one, the braille blank.
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_UNSEEN = frozenset(("Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"))
# What reads as one of the mark's four characters after NFKC and case folding, from
# Unicode's confusables (UTS #39) of "(", ")", "A" and "I", and ASCII's small L and bar:
# in Discord's font "(Al)" is "(AI)". Only the mark is compared, so nothing else needs
# the whole skeleton.
_MARK_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u0430\u03b1\u0251\u1d00\u13aa\ua4ee", "a"),
        **dict.fromkeys(
            "l|\u0456\u03b9\u04cf\u01c0\u026a\u0131\u0269\ua4f2\u2d4f\u05c0\u16c1", "i"
        ),
        **dict.fromkeys("\u2768\u276a\u27ee\ufd3e", "("),
        **dict.fromkeys("\u2769\u276b\u27ef\ufd3f", ")"),
    }
)


def looks_like(name: str) -> str:
    """What `name` reads as at the table, for comparing with the mark: its letters,
    digits and parentheses in plain ASCII, lower case. NFKC makes fullwidth look-alikes
    ASCII, and the mark's look-alikes in other scripts become its letters; whatever is
    left unseen (spaces, joiners, marks, fillers, braille blanks) is dropped."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_MARK_LOOKALIKES)
    return "".join(c for c in folded if c.isascii() and (c.isalnum() or c in "()"))


def ends_in_ai_mark(name: str) -> bool:
    """Whether `name` reads as ending in an AI seat's mark, "(AI)" in any case, width or
    spacing."""
    return looks_like(name).endswith(_MARK_LOOK)


def member_seat_name(name: str) -> str:
    """A member's name as their seat shows it: without the AI marks it ends in (each cut
    where what it reads as ends before the mark), never empty."""
    while ends_in_ai_mark(name):
        keep = len(looks_like(name)) - len(_MARK_LOOK)
        cut = len(name)
        while cut > 0 and len(looks_like(name[:cut])) > keep:
            cut -= 1
        name = name[:cut].rstrip()
    return name.strip() if _seen(name) else UNNAMED


def _seen(name: str) -> bool:
    """Whether `name` shows anything at all (a letter of any script counts)."""
    return any(
        c not in _FILLERS and unicodedata.category(c) not in _UNSEEN and not c.isspace()
        for c in name
    )
