"""Renderers: the board image and text show public facts only; reveal and chart are exact."""

from __future__ import annotations

import io
import random
import re
from collections import Counter
from collections.abc import Sequence

import pytest
from PIL import Image

from bot.render import board_text, render_board, render_suspicion_chart, reveal_text
from bot.render.board import (
    CARD_ALIVE,
    CARD_DEAD,
    FASCIST,
    FASCIST_EMPTY,
    LIBERAL,
    LIBERAL_EMPTY,
    ROLE_COLOURS,
    TAG_COLOURS,
    TRACKER_OFF,
    TRACKER_ON,
    BoardGeometry,
    drawable,
    fit,
    probe,
    text_width,
)
from bot.render.chart import HIGH, LOW, MID, OWN, ChartGeometry, heat
from bot.suspicion import Marginals, SuspicionSnapshot, SuspicionTrack
from engine import (
    Action,
    ChancellorClaim,
    Discard,
    Enact,
    FixedChance,
    Game,
    Investigate,
    InvestigationClaim,
    Nominate,
    Party,
    Phase,
    PlayerView,
    Policy,
    PresidentClaim,
    ProposeVeto,
    Role,
    VetoReply,
    Vote,
)
from engine import events as ev

NAMES = ("Ada", "Boris", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Juno")
L, F = Policy.LIBERAL, Policy.FASCIST


def play(players: int, seed: int, steps: int | None = None, claims: float = 0.6) -> Game:
    """A game of random legal actions (and random legal claims), `steps` actions long."""
    game = Game(players, seed=seed)
    rng = random.Random(seed)
    done = 0
    while not game.is_over and (steps is None or done < steps):
        for seat in range(players):
            options = game.legal_claims(seat)
            if options and rng.random() < claims:
                game.apply(rng.choice(options))
        seat = game.awaiting()[0]
        game.apply(rng.choice(game.legal_actions(seat)))
        done += 1
    return game


def positions(players: int, seed: int, every: int = 7) -> list[PlayerView]:
    """Spectator views of one random game, every `every` actions, and its last position."""
    game = Game(players, seed=seed)
    rng = random.Random(seed)
    out = [game.spectator_view()]
    step = 0
    while not game.is_over:
        seat = game.awaiting()[0]
        game.apply(rng.choice(game.legal_actions(seat)))
        step += 1
        if step % every == 0 or game.is_over:
            out.append(game.spectator_view())
    return out


def png(data: bytes) -> Image.Image:
    """Decode PNG bytes (raises if they are not a PNG)."""
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


# --- the board image ----------------------------------------------------------------


def assert_board_matches(image: Image.Image, view: PlayerView) -> None:
    """Every slot, tracker spot and player card has the colour the view calls for."""
    geometry = BoardGeometry(view.players)
    assert image.size == geometry.size
    for index in range(5):
        want = LIBERAL if index < view.liberal_policies else LIBERAL_EMPTY
        assert image.getpixel(probe(geometry.liberal_slot(index))) == want, index
    for index in range(6):
        want = FASCIST if index < view.fascist_policies else FASCIST_EMPTY
        assert image.getpixel(probe(geometry.fascist_slot(index))) == want, index
    for index in range(3):
        box = geometry.tracker_spot(index)
        centre = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        want = TRACKER_ON if index < view.election_tracker else TRACKER_OFF
        assert image.getpixel(centre) == want, index
    for seat in range(view.players):
        box = geometry.player_card(seat)
        want = CARD_ALIVE if view.alive[seat] else CARD_DEAD
        assert image.getpixel(probe(box)) == want, seat
        # Badges in colours that text edges never produce: present exactly when due.
        card = image.crop((box[0], box[1], box[2] + 1, box[3] + 1))
        counts = card.getcolors(card.width * card.height) or []  # None only past maxcolors
        colours = Counter({colour: n for n, colour in counts})
        due = {
            "Not Hitler": seat in view.not_hitler,
            "Investigated": seat in view.investigated,
            "Voted": view.phase is Phase.VOTE and seat in view.voted,
        }
        for tag, shown in due.items():
            assert (colours[TAG_COLOURS[tag]] > 200) is shown, (seat, tag)


@pytest.mark.parametrize("players", range(5, 11))
def test_board_draws_tracks_tracker_and_players_where_the_geometry_says(players: int) -> None:
    views = positions(players, seed=100 + players, every=12)
    for view in views:
        image = png(render_board(view, NAMES[:players]))
        assert 800 <= image.width <= 1000
        assert_board_matches(image, view)
    # The random game went somewhere: policies were enacted and the game ended.
    assert views[-1].is_over
    assert views[-1].liberal_policies + views[-1].fascist_policies > 0


def test_three_fascist_policies_fill_exactly_the_first_three_fascist_slots() -> None:
    view = next(
        v
        for seed in range(200)
        for v in positions(7, seed, every=1)
        if v.fascist_policies == 3 and v.liberal_policies == 1 and v.election_tracker == 1
    )
    image = png(render_board(view, NAMES[:7]))
    geometry = BoardGeometry(7)
    slots = [image.getpixel(probe(geometry.fascist_slot(i))) for i in range(6)]
    assert slots == [FASCIST] * 3 + [FASCIST_EMPTY] * 3
    liberal = [image.getpixel(probe(geometry.liberal_slot(i))) for i in range(5)]
    assert liberal == [LIBERAL] + [LIBERAL_EMPTY] * 4
    spots = [geometry.tracker_spot(i) for i in range(3)]
    tracker = [image.getpixel(((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)) for b in spots]
    assert tracker == [TRACKER_ON, TRACKER_OFF, TRACKER_OFF]


def test_board_geometry_fits_the_image_and_nothing_overlaps() -> None:
    for players in range(5, 11):
        geometry = BoardGeometry(players)
        width, height = geometry.size
        boxes = (
            [geometry.liberal_slot(i) for i in range(5)]
            + [geometry.fascist_slot(i) for i in range(6)]
            + [geometry.tracker_spot(i) for i in range(3)]
            + [geometry.player_card(s) for s in range(players)]
        )
        for box in boxes:
            assert 0 <= box[0] < box[2] < width and 0 <= box[1] < box[3] < height
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], (a, b)


@pytest.mark.parametrize("players", [5, 10])
def test_board_and_text_are_the_same_from_every_seat_and_for_spectators(players: int) -> None:
    game = Game(players, seed=7)
    rng = random.Random(7)
    step = 0
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions(game.awaiting()[0])))
        step += 1
        if step % 31 and not game.is_over:  # a sample of positions keeps the test quick
            continue
        names = NAMES[:players]
        public_png = render_board(game.spectator_view(), names)
        public_text = board_text(game.spectator_view(), names)
        for seat in range(players):
            assert render_board(game.view(seat), names) == public_png
            assert board_text(game.view(seat), names) == public_text


def _public(events: Sequence[ev.Event]) -> list[ev.Event]:
    return [e for e in events if e.visible_to(None)]


def test_same_public_history_with_different_roles_gives_identical_board_and_text() -> None:
    # Same deck, same first president, same actions; only the hidden role deal differs.
    rng = random.Random(3)
    deck = [L] * 6 + [F] * 11
    rng.shuffle(deck)
    roles_a = [Role.LIBERAL] * 4 + [Role.FASCIST] * 2 + [Role.HITLER]
    roles_b = [Role.HITLER, Role.FASCIST, Role.LIBERAL, Role.FASCIST] + [Role.LIBERAL] * 3
    a = Game(7, chance=_SeededReshuffles(roles_a, 2, deck, seed=11))
    b = Game(7, chance=_SeededReshuffles(roles_b, 2, deck, seed=11))
    compared = 0
    while not a.is_over and not b.is_over:
        action = rng.choice(a.legal_actions(a.awaiting()[0]))
        a.apply(action)
        b.apply(action)
        if _public(a.events) != _public(b.events):
            break  # a Hitler-dependent ending: the public histories part here
        va, vb = a.spectator_view(), b.spectator_view()
        assert board_text(va, NAMES[:7]) == board_text(vb, NAMES[:7])
        if len(a.actions) % 4 == 0:  # every image would be slow; every fourth suffices
            assert render_board(va, NAMES[:7]) == render_board(vb, NAMES[:7])
            compared += 1
    assert compared > 10
    assert a.roles != b.roles


class _SeededReshuffles(FixedChance):
    """FixedChance (roles, first president, deck) whose reshuffles come from a seed."""

    def __init__(
        self, roles: Sequence[Role], first_president: int, deck: Sequence[Policy], seed: int
    ) -> None:
        super().__init__(roles, first_president, deck)
        self.rng = random.Random(seed)

    def shuffle(self, tiles: Sequence[Policy]) -> list[Policy]:
        if self.used < len(self.piles):
            return super().shuffle(tiles)
        pile = list(tiles)
        self.rng.shuffle(pile)
        return pile


def test_the_final_board_names_every_role_and_a_running_one_refuses_to() -> None:
    for players in (5, 10):
        game = play(players, seed=players)
        view = game.spectator_view()
        image = png(render_board(view, NAMES[:players], game.roles))
        assert_board_matches(image, view)  # the public board is unchanged by the roles
        geometry = BoardGeometry(players)
        for seat, role in enumerate(game.roles):
            badge = geometry.role_badge(seat)
            assert image.getpixel((badge[0] + 3, badge[1] + 8)) == ROLE_COLOURS[role], seat
        plain = png(render_board(view, NAMES[:players]))
        badge = geometry.role_badge(0)
        assert plain.getpixel((badge[0] + 3, badge[1] + 8)) == CARD_ALIVE or not view.alive[0]
    running = play(7, seed=1, steps=10)
    with pytest.raises(ValueError, match="finished"):
        render_board(running.spectator_view(), NAMES[:7], running.roles)


def test_board_text_states_the_public_facts() -> None:
    view = next(
        v
        for seed in range(200)
        for v in positions(9, seed, every=1)
        if v.fascist_policies == 4 and not v.is_over and not all(v.alive) and v.not_hitler
    )
    text = board_text(view, NAMES[:9])
    assert "[F][F][F][F][ ][ ]  4/6  ahead: 5 execution + veto" in text
    liberal = "[L]" * view.liberal_policies + "[ ]" * (5 - view.liberal_policies)
    assert f"Liberal  {liberal}  {view.liberal_policies}/5" in text
    assert "Hitler zone" in text
    assert f"Election tracker {view.election_tracker}/3" in text
    assert f"draw pile {view.draw_pile} · discard pile {view.discard_pile}" in text
    for seat in range(9):
        assert f"{seat} {NAMES[seat]}" in text
    tags = {
        int(seat): set(found.split(", ")) if found else set()
        for seat, found in re.findall(r"(\d) \w+(?: \(([^)]*)\))?(?:;|$)", text.splitlines()[-1])
    }
    leader = "Candidate" if view.phase in (Phase.NOMINATE, Phase.VOTE) else "President"
    for seat in range(9):
        assert ("Executed" in tags[seat]) is (not view.alive[seat])
        assert ("Not Hitler" in tags[seat]) is (seat in view.not_hitler)
        assert ("Investigated" in tags[seat]) is (seat in view.investigated)
        assert ("Term-limited" in tags[seat]) is (seat in view.term_limited)
        assert (leader in tags[seat]) is (seat == view.president)
    assert len(text.splitlines()) == 5


def test_names_that_do_not_fit_or_lack_glyphs_are_shortened_and_replaced() -> None:
    assert drawable("Zoë Ångström") == "Zoe Angstrom"
    assert drawable("漢字 Ada") == "?? Ada"
    long = "Bartholomew-Maximilian von Ostenfeld-Kreuzberg"
    short = fit(long, 18, 150)
    assert short.endswith("…") and text_width(short, 18) <= 150
    names = [long, "漢字", "Zoë", "🙂", "x" * 80, "Fay", "Gus"]
    view = Game(7, seed=1).spectator_view()
    image = png(render_board(view, names))
    assert image.size == BoardGeometry(7).size
    assert_board_matches(image, view)
    with pytest.raises(ValueError):
        render_board(view, names[:6])
    with pytest.raises(ValueError):
        board_text(view, names[:6])


# --- the reveal ---------------------------------------------------------------------


def _section(text: str, start: str, end: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index(start) + 1 : lines.index(end)] if end in lines else []


@pytest.mark.parametrize("players", range(5, 11))
def test_reveal_names_every_role_and_every_hidden_hand_in_order(players: int) -> None:
    game = play(players, seed=40 + players)
    assert game.is_over
    names = NAMES[:players]
    text = reveal_text(game.events, game.roles, names)
    teams = {"Hitler": Role.HITLER, "Fascists": Role.FASCIST, "Liberals": Role.LIBERAL}
    found: dict[str, Role] = {}
    for line in _section(text, "Roles:", "What really happened:"):
        team, members = line.strip().split(": ")
        for name in members.split(", "):
            found[name] = teams[team]
    assert found == {names[s]: role for s, role in enumerate(game.roles)}
    sessions = [line for line in text.splitlines() if line.startswith("  Session ")]
    drawn = [e.tiles for e in game.events if isinstance(e, ev.PoliciesDrawn)]
    received = [e.tiles for e in game.events if isinstance(e, ev.PoliciesReceived)]
    discarded = [e.policy for e in game.events if isinstance(e, ev.PolicyDiscarded)]
    assert len(sessions) == len(drawn) > 0
    assert re.findall(r"drew ([LF] [LF] [LF])", "\n".join(sessions)) == [" ".join(t) for t in drawn]
    assert re.findall(r"received ([LF] [LF])", "\n".join(sessions)) == [
        " ".join(t) for t in received
    ]
    assert re.findall(r"discarded ([LF])\b", "\n".join(sessions)) == [p.value for p in discarded]
    peeks = [" ".join(e.tiles) for e in game.events if isinstance(e, ev.PolicyPeeked)]
    assert re.findall(r"saw ([LF] [LF] [LF]) \(top first\)", text) == peeks
    results = [
        f"saw that {names[e.target]} is a {e.party.value.capitalize()}"
        for e in game.events
        if isinstance(e, ev.InvestigationResult)
    ]
    assert [r for r in results if r in text] == results
    ending = next(e for e in game.events if isinstance(e, ev.GameEnded))
    assert ("Liberals win" if ending.winner is Party.LIBERAL else "Fascists win") in text


def _five_player_session() -> Game:
    roles = [Role.LIBERAL, Role.LIBERAL, Role.FASCIST, Role.HITLER, Role.LIBERAL]
    deck = [L, F, F] + [L] * 5 + [F] * 9
    game = Game(5, chance=FixedChance(roles, 0, deck))
    game.apply(Nominate(0, 1))
    for seat in range(5):
        game.apply(Vote(seat, True))
    game.apply(Discard(0, L))
    game.apply(Enact(1, F))
    return game


def test_reveal_flags_a_lie_and_confirms_a_true_claim() -> None:
    game = _five_player_session()
    game.apply(PresidentClaim(0, (F, F, F), (F, F)))  # a lie: Ada drew L F F
    game.apply(ChancellorClaim(1, (F, F)))  # the truth
    text = reveal_text(game.events, game.roles, NAMES[:5])
    lines = [line.strip() for line in text.splitlines()]
    assert (
        "Session 1 — President Ada drew L F F, discarded L; "
        "Chancellor Boris received F F, discarded F, enacted F."
    ) in lines
    assert "Ada claimed to draw F F F and pass F F — LIE (really drew L F F, passed F F)." in lines
    assert "Boris claimed to receive F F — true." in lines
    assert "Lies: 1 of 2 claims (Ada 1 of 1)." in lines


def test_reveal_without_lies_says_so() -> None:
    game = _five_player_session()
    game.apply(PresidentClaim(0, (L, F, F), (F, F)))
    lines = [line.strip() for line in reveal_text(game.events, game.roles, NAMES[:5]).splitlines()]
    assert "Ada claimed to draw L F F and pass F F — true." in lines
    assert lines[-1] == "Lies: 0 of 1 claims."
    untouched = reveal_text(_five_player_session().events, game.roles, NAMES[:5])
    assert untouched.splitlines()[-1] == "Claims: none were made."


def test_reveal_shows_an_investigation_and_catches_a_lie_about_it() -> None:
    roles = [Role.LIBERAL, Role.LIBERAL, Role.FASCIST, Role.HITLER, Role.LIBERAL]
    roles += [Role.FASCIST, Role.LIBERAL, Role.FASCIST, Role.LIBERAL]
    deck = [F, F, F] + [L] * 6 + [F] * 8
    game = Game(9, chance=FixedChance(roles, 0, deck))
    game.apply(Nominate(0, 1))
    for seat in range(9):
        game.apply(Vote(seat, True))
    game.apply(Discard(0, F))
    game.apply(Enact(1, F))
    game.apply(Investigate(0, 4))
    game.apply(InvestigationClaim(0, 4, Party.FASCIST))
    text = reveal_text(game.events, game.roles, NAMES[:9])
    lines = [line.strip() for line in text.splitlines()]
    assert "Investigation — President Ada saw that Emil is a Liberal." in lines
    assert "Ada claimed Emil is a Fascist — LIE (really saw Liberal)." in lines


def _fascist_push(seed: int, veto_replies: list[bool]) -> Game:
    """A 5-player game steered to the veto: Fascist policies first, Hitler never hit."""
    game = Game(5, seed=seed)
    hitler = game.roles.index(Role.HITLER)
    while not game.is_over:
        seat = game.awaiting()[0]
        actions = game.legal_actions(seat)
        match game.phase:
            case Phase.VOTE:
                action: Action = Vote(seat, True)
            case Phase.PRESIDENT_DISCARD:
                action = Discard(seat, L) if Discard(seat, L) in actions else actions[0]
            case Phase.CHANCELLOR_ENACT if ProposeVeto(seat) in actions and veto_replies:
                action = ProposeVeto(seat)
            case Phase.CHANCELLOR_ENACT:
                action = Enact(seat, F) if Enact(seat, F) in actions else actions[0]
            case Phase.VETO_REPLY:
                action = VetoReply(seat, veto_replies.pop(0))
            case _:  # nominate or a power: anyone but Hitler
                action = next(
                    a
                    for a in actions
                    if getattr(a, "chancellor", None) != hitler
                    and getattr(a, "target", None) != hitler
                )
        game.apply(action)
    return game


def test_reveal_tells_an_agreed_and_a_refused_veto() -> None:
    game = _fascist_push(seed=1, veto_replies=[True, False])
    text = reveal_text(game.events, game.roles, NAMES[:5])
    replies = [e.agreed for e in game.events if isinstance(e, ev.VetoReplied)]
    assert replies == [True, False]
    hands = [e.tiles for e in game.events if isinstance(e, ev.PoliciesReceived)]
    chancellors = [e.seat for e in game.events if isinstance(e, ev.PoliciesReceived)]
    discarded = [e for e in game.events if isinstance(e, ev.PolicyDiscarded)][-1].policy
    enacted = [e for e in game.events if isinstance(e, ev.PolicyEnacted)][-1].policy
    vetoed = " ".join(hands[-2])
    assert (
        f"received {vetoed}, proposed a veto; the President agreed: both discarded ({vetoed})."
        in text
    )
    assert (
        f"received {' '.join(hands[-1])}, proposed a veto; the President refused, so "
        f"{NAMES[chancellors[-1]]} discarded {discarded.value}, enacted {enacted.value}."
    ) in text


def _claims_and_truths(game: Game) -> tuple[int, int]:
    """Count claims and lies independently of the renderer, from the events."""
    drawn: dict[int, tuple[Policy, ...]] = {}
    passed: dict[int, list[Policy]] = {}
    received: dict[int, tuple[Policy, ...]] = {}
    peeked: dict[int, tuple[Policy, ...]] = {}
    seen: dict[tuple[int, int], Party] = {}
    last_president = -1
    claims = lies = 0
    for e in game.events:
        match e:
            case ev.PoliciesDrawn(seat=s, tiles=t):
                drawn[s], passed[s], last_president = t, list(t), s
            case ev.PolicyDiscarded(seat=s, policy=p) if s == last_president and s in passed:
                if len(passed[s]) == 3:
                    passed[s].remove(p)
            case ev.PoliciesReceived(seat=s, tiles=t):
                received[s] = t
            case ev.PolicyPeeked(seat=s, tiles=t):
                peeked[s] = t
            case ev.InvestigationResult(seat=s, target=t, party=p):
                seen[(s, t)] = p
            case ev.PresidentClaimed(president=s, drew=d, passed=p):
                claims += 1
                lies += sorted(d) != sorted(drawn[s]) or sorted(p) != sorted(passed[s])
            case ev.ChancellorClaimed(chancellor=s, received=r):
                claims += 1
                lies += sorted(r) != sorted(received[s])
            case ev.PeekClaimed(president=s, tiles=t):
                claims += 1
                lies += sorted(t) != sorted(peeked[s])
            case ev.InvestigationClaimed(president=s, target=t, party=p):
                claims += 1
                lies += p is not seen[(s, t)]
    return claims, lies


@pytest.mark.parametrize("seed", range(8))
def test_reveal_lie_count_agrees_with_an_independent_count(seed: int) -> None:
    game = play(5 + seed % 6, seed=seed, claims=1.0)
    text = reveal_text(game.events, game.roles, NAMES[: game.players])
    claims, lies = _claims_and_truths(game)
    assert claims > 0
    assert text.count(" — LIE (really ") == lies
    assert text.count(" — true.") == claims - lies
    assert f"Lies: {lies} of {claims} claims" in text


def _marginals(fascist: Sequence[float], hitler: Sequence[float]) -> Marginals:
    return tuple((1.0 - f, f - h, h) for f, h in zip(fascist, hitler, strict=True))


def test_reveal_summarises_each_observers_suspicion_and_judges_it() -> None:
    roles = [Role.LIBERAL, Role.LIBERAL, Role.FASCIST, Role.HITLER, Role.LIBERAL]
    start = _marginals([0.4] * 5, [0.2] * 5)
    right = _marginals([0.1, 0.2, 0.8, 0.9, 0.0], [0.05, 0.1, 0.2, 0.7, 0.0])
    wrong = _marginals([0.1, 0.0, 0.9, 0.5, 0.3], [0.05, 0.0, 0.6, 0.3, 0.1])
    tracks = [
        SuspicionTrack(
            "The table",
            None,
            [SuspicionSnapshot("Start", start), SuspicionSnapshot("Session 1", right)],
        ),
        SuspicionTrack(
            "Boris", 1, [SuspicionSnapshot("Start", start), SuspicionSnapshot("Session 1", wrong)]
        ),
        SuspicionTrack("Emil", 4),
    ]
    text = reveal_text(_five_player_session().events, roles, NAMES[:5], tracks)
    lines = [line.strip() for line in text.splitlines()]
    assert (
        "The table, 2 snapshots: Ada 40%→10%, Boris 40%→20%, Chen 40%→80%, "
        "Dara 40%→90%, Emil 40%→0%."
    ) in lines
    assert (
        "Most suspected as Hitler at the end: Dara (70%) — right. "
        "Top 2 Fascist suspects: Dara, Chen — 2 of 2 right."
    ) in lines
    # Boris's own seat is left out: he knows his own role.
    assert (
        "Boris (seat 1), 2 snapshots: Ada 40%→10%, Chen 40%→90%, Dara 40%→50%, Emil 40%→30%."
    ) in lines
    assert (
        "Most suspected as Hitler at the end: Chen (60%) — wrong, Hitler was Dara (30%). "
        "Top 2 Fascist suspects: Chen, Dara — 2 of 2 right."
    ) in lines
    assert "Emil (seat 4): no snapshots recorded." in lines
    # Hitler's own read judges only the Fascist team: who Hitler is, it knows.
    knows = _marginals([0.1, 0.2, 0.7, 1.0, 0.3], [0.0, 0.0, 0.0, 1.0, 0.0])
    own = [SuspicionTrack("Dara", 3, [SuspicionSnapshot("Start", knows)])]
    lines = [line.strip() for line in reveal_text([], roles, NAMES[:5], own).splitlines()]
    assert "Top 1 Fascist suspects: Chen — 1 of 1 right." in lines
    assert not any("Most suspected as Hitler" in line for line in lines)
    bad = [SuspicionTrack("Gus", 0, [SuspicionSnapshot("Start", start[:4])])]
    with pytest.raises(ValueError):
        reveal_text([], roles, NAMES[:5], bad)


# --- the suspicion chart ------------------------------------------------------------


def _snapshots(players: int, count: int, seed: int) -> list[SuspicionSnapshot]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        fascist = [rng.random() for _ in range(players)]
        out.append(
            SuspicionSnapshot(f"Session {i + 1}", _marginals(fascist, [f / 3 for f in fascist]))
        )
    return out


@pytest.mark.parametrize("players", [5, 10])
@pytest.mark.parametrize("count", [0, 1, 2, 14, 30])
def test_chart_renders_any_number_of_snapshots(players: int, count: int) -> None:
    roles = list(Game(players, seed=players).roles)
    names = [f"{n} the {'very ' * 8}long-named" for n in NAMES[:players]]
    for observers in (1, 3, players + 1):
        tracks = [
            SuspicionTrack("The table" if i == 0 else names[i - 1], None if i == 0 else i - 1)
            for i in range(observers)
        ]
        for i, track in enumerate(tracks):
            track.snapshots = _snapshots(players, count, seed=i)
        image = png(render_suspicion_chart(tracks, names, roles))
        geometry = ChartGeometry(observers, players)
        assert image.size == geometry.size
        # Every cell lies inside its panel, and every panel inside the image.
        for index in range(observers):
            panel = geometry.panel(index)
            assert panel[0] >= 0 and panel[2] < image.width and panel[3] < image.height
            for snapshot in (0, count - 1) if count else ():
                cell = geometry.cell(index, players - 1, snapshot, count)
                assert panel[0] < cell[0] <= cell[2] < panel[2] and cell[3] < panel[3]


def test_chart_at_ten_players_stays_under_a_thousand_pixels() -> None:
    """Ten seats, the table and ten AI observers, a long game: at most 1,000 px tall."""
    players = 10
    roles = list(Game(players, seed=4).roles)
    tracks = [SuspicionTrack("The table", None, _snapshots(players, 25, seed=0))]
    tracks += [
        SuspicionTrack(NAMES[s], s, _snapshots(players, 25, seed=s + 1)) for s in range(players)
    ]
    image = png(render_suspicion_chart(tracks, list(NAMES), roles))
    assert image.height <= 1000 and image.width <= 1200


def test_chart_with_no_tracks_is_still_an_image() -> None:
    roles = list(Game(5, seed=1).roles)
    image = png(render_suspicion_chart([], NAMES[:5], roles))
    assert image.size == ChartGeometry(0, 5).size


def test_heat_runs_from_liberal_blue_through_white_to_fascist_red() -> None:
    assert heat(0.0) == LOW and heat(0.5) == MID and heat(1.0) == HIGH
    assert heat(-1.0) == LOW and heat(2.0) == HIGH
    reds = [heat(p / 10)[0] - heat(p / 10)[2] for p in range(11)]
    assert reds == sorted(reds) and len(set(reds)) == 11  # redder with every step


def centre(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def test_chart_colours_each_seats_cell_by_its_probability() -> None:
    players = 10
    roles = list(Game(players, seed=3).roles)
    fascist = [0.05 + 0.1 * s for s in range(players)]
    one = SuspicionSnapshot("Start", _marginals(fascist, [0.0] * players))
    later = SuspicionSnapshot("Session 1", _marginals(fascist[::-1], [0.0] * players))
    tracks = [
        SuspicionTrack("The table", None, [one]),
        SuspicionTrack("Ada", 0, [one, one, later]),
    ]
    image = png(render_suspicion_chart(tracks, list(NAMES), roles))
    geometry = ChartGeometry(2, players)
    for seat in range(players):
        assert image.getpixel(centre(geometry.cell(0, seat, 0, 1))) == heat(fascist[seat])
        if seat == 0:  # the observer's own row is grey: it knows its own role
            for snapshot in range(3):
                assert image.getpixel(centre(geometry.cell(1, 0, snapshot, 3))) == OWN
            continue
        assert image.getpixel(centre(geometry.cell(1, seat, 1, 3))) == heat(fascist[seat])
        want = heat(fascist[::-1][seat])
        assert image.getpixel(centre(geometry.cell(1, seat, 2, 3))) == want, seat


def test_chart_rejects_marginals_of_the_wrong_size() -> None:
    roles = list(Game(5, seed=1).roles)
    track = SuspicionTrack("The table", None, _snapshots(6, 2, seed=0))
    with pytest.raises(ValueError):
        render_suspicion_chart([track], NAMES[:5], roles)


# --- the terminal's story -------------------------------------------------------------


def test_the_story_speaks_to_the_local_player_as_you() -> None:
    from bot.render.story import Teller, story_lines

    you = Teller(NAMES[:5], you=1)
    them = Teller(NAMES[:5])
    nominated = ev.ChancellorNominated(president=1, chancellor=3)
    assert you.line(nominated) == "You nominate Dara for Chancellor."
    assert them.line(nominated) == "Boris nominates Dara for Chancellor."
    assert you.line(ev.PlayerExecuted(president=0, target=1)) == "Ada executes you."
    claim = ev.InvestigationClaimed(president=2, target=1, party=Party.FASCIST)
    assert you.line(claim) == "Chen claims: you are a Fascist."
    assert them.line(claim) == "Chen claims: Boris is a Fascist."
    votes = (True, False, True, True, None)
    lines = story_lines(
        [
            ev.PresidentialCandidate(president=1),
            ev.ChancellorNominated(president=1, chancellor=2),
            ev.ElectionResult(president=1, chancellor=2, votes=votes, elected=False),
            ev.ElectionTrackerAdvanced(election_tracker=1),
        ],
        you,
        rounds_before=4,
    )
    claimed = ev.ChancellorClaimed(chancellor=3, received=(Policy.LIBERAL, Policy.FASCIST))
    later = story_lines(
        [
            ev.PolicyHandPassed(president=1, chancellor=3),
            ev.PresidentialCandidate(president=2),
            claimed,
        ],
        you,
        rounds_before=4,
    )
    assert later[-2:] == [
        "Round 5 · Chen for President",
        "  Dara claims about round 4: received L F.",
    ]
    assert story_lines([claimed], you, rounds_before=6, government=6) == [
        "  Dara claims: received L F."
    ]
    assert lines == [
        "",
        "Round 5 · you are the presidential candidate",
        "  You nominate Chen for Chancellor.",
        "  Rejected (3 Ja, 1 Nein). Nein: you. Election tracker: 1/3.",
    ]
