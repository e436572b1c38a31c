"""A member's name never passes for an AI seat's label ("Boris (AI)")."""

from __future__ import annotations

import pytest

from bot.seat_names import UNNAMED, ends_in_ai_mark, member_seat_name


@pytest.mark.parametrize(
    ("name", "seated"),
    [
        ("Chen (AI)", "Chen"),
        ("Chen (ai)  ", "Chen"),
        ("Chen\uff08\uff21\uff29\uff09", "Chen"),  # fullwidth look-alikes
        ("Chen (A\u200bI)", "Chen"),  # an invisible joiner inside the mark
        ("Boris (AI) (AI)", "Boris"),
        ("Zoë (AI)", "Zoë"),  # the name's own letters are kept as they are
        ("(AI)", UNNAMED),
        ("\u3164 (AI)", UNNAMED),  # a Hangul filler: nothing seen is left
        ("\u200b(AI)", UNNAMED),
        ("\u5927\u548c (AI)", "\u5927\u548c"),  # letters of another script are a name
        ("Ana (Aida)", "Ana (Aida)"),
        ("x(AI)y", "x(AI)y"),
        ("alice", "alice"),
    ],
)
def test_a_member_is_seated_without_an_ai_mark(name: str, seated: str) -> None:
    assert member_seat_name(name) == seated
    assert not ends_in_ai_mark(member_seat_name(name))


def test_the_mark_reads_the_same_in_any_case_width_or_spacing() -> None:
    assert ends_in_ai_mark("Boris (AI)") and ends_in_ai_mark("boris( a i )")
    assert ends_in_ai_mark("Boris\u3000\uff08\uff41\uff49\uff09")
    assert not ends_in_ai_mark("Boris (AIR)") and not ends_in_ai_mark("Boris AI")


@pytest.mark.parametrize(
    "name",
    [
        "Chen (Al)",  # a small L: the same stroke as a capital I in Discord's font
        "Chen (A|)",
        "Chen (\u0410I)",  # Cyrillic capital A
        "Chen (A\u0406)",  # Cyrillic capital Byelorussian-Ukrainian I
        "Chen (\u0391\u0399)",  # Greek capital alpha and iota
        "Chen (A\u04c0)",  # Cyrillic palochka
        "Chen (A\u01c0)",  # Latin letter dental click
        "Chen (\u1d00\u026a)",  # Latin small capitals A and I
        "Chen \u2768AI\u2769",  # ornamental parentheses
        "Chen \ufd3eAI\ufd3f",  # ornate parentheses
    ],
)
def test_look_alike_letters_do_not_make_an_ai_mark(name: str) -> None:
    """Letters of other scripts (or ASCII's own small L) that read as "(AI)" at the
    table are the mark too (Unicode's confusables of its four characters)."""
    assert ends_in_ai_mark(name)
    assert member_seat_name(name) == "Chen"


def test_names_that_only_share_letters_with_the_mark_are_kept() -> None:
    for name in ("Alex (Al)x", "Ilya", "Sol (AIl)", "\u0410\u043d\u044f", "Mia (A)"):
        assert member_seat_name(name) == name
