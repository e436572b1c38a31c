"""The legislative session's one Open your hand button: a new button per decision."""

from __future__ import annotations

from dataclasses import replace

from bot.discord.components import ComponentId
from bot.discord.frontend import hand_id
from engine import Game


def test_the_chancellors_hand_after_a_refused_veto_is_a_new_button() -> None:
    game = Game(7, seed=3)
    view = game.spectator_view()
    first = hand_id(1, view)
    assert ComponentId.parse(str(first)) == first  # a valid custom_id, read back whole
    # The President refused the Chancellor's veto: the Chancellor decides again, and a
    # member (or the test driver) who answered the first hand sees a new button.
    again = hand_id(1, replace(view, veto_refused=True))
    assert again != first and str(again).endswith(".v")
    # The next session is another button too.
    later = hand_id(1, replace(view, liberal_policies=view.liberal_policies + 1))
    assert later not in (first, again)
