"""The suspicion chart: per observer, a heatmap of each seat's P(Fascist or Hitler).

A PNG drawn with Pillow alone (no plotting library), as small multiples: one panel per
observer (the table, then each AI player), one row per seat and one column per snapshot
(the start, then after each legislative session). A cell's colour runs from Liberal blue
(0%) through white (50%) to Fascist red (100%), so ten seats over twenty sessions stay
readable where ten crossing lines do not. Each row names its seat with its true role, so
the chart belongs to the end-of-game reveal and is never shown while a game runs.
The layout is fixed arithmetic (`ChartGeometry`) so tests can find any cell.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import Role

from ..suspicion import SuspicionTrack
from .board import RGB, Box, draw_centred, draw_text, fit, text_width

WIDTH = 1200
MARGIN = 20
PANEL_GAP = 14
CELL_H = 16  # one seat's row: ten seats and eleven observers stay under 1,000 px
MAX_CELL_W = 44  # a short game's columns stay square-ish rather than stretched
_TITLE_H = 36
_SCALE_H = 34  # the colour scale and the key to the columns
_PANEL_TITLE_H = 24
_X_LABELS_H = 18
_LABEL_W = 112  # seat names at the left of each panel
_PAD = 6

BACKGROUND: RGB = (252, 251, 248)
INK: RGB = (33, 33, 33)
MUTED: RGB = (120, 120, 120)
GRID: RGB = (222, 222, 222)
PANEL: RGB = (255, 255, 255)
OWN: RGB = (200, 200, 200)  # the observer's own row: it knows its own role
LOW: RGB = (38, 99, 170)  # 0%: surely Liberal
MID: RGB = (247, 247, 247)  # 50%
HIGH: RGB = (186, 38, 38)  # 100%: surely Fascist or Hitler
ROLE_COLOURS: dict[Role, RGB] = {
    Role.LIBERAL: (38, 99, 170),
    Role.FASCIST: (186, 38, 38),
    Role.HITLER: (110, 10, 10),
}
_ROLE_LETTER = {Role.LIBERAL: "L", Role.FASCIST: "F", Role.HITLER: "H"}


def heat(p: float) -> RGB:
    """The colour of probability `p`: blue at 0, near-white at 0.5, red at 1."""
    p = min(max(p, 0.0), 1.0)
    low, high, t = (LOW, MID, p * 2) if p < 0.5 else (MID, HIGH, p * 2 - 1)
    r, g, b = (round(a + (z - a) * t) for a, z in zip(low, high, strict=True))
    return r, g, b


@dataclass(frozen=True, slots=True)
class ChartGeometry:
    """Where the scale, panels and cells go for a number of observers and seats."""

    observers: int
    seats: int

    @property
    def columns(self) -> int:
        """Panels side by side: one for a single observer, two up to four, else three."""
        if self.observers <= 1:
            return 1
        return 2 if self.observers <= 4 else 3

    @property
    def panel_height(self) -> int:
        """One panel: its title, a row per seat, the column labels."""
        return _PANEL_TITLE_H + self.seats * CELL_H + _X_LABELS_H + _PAD

    @property
    def size(self) -> tuple[int, int]:
        """Image width and height."""
        rows = -(-max(self.observers, 1) // self.columns)
        top = _TITLE_H + _SCALE_H + PANEL_GAP
        return WIDTH, top + rows * (self.panel_height + PANEL_GAP) - PANEL_GAP + MARGIN

    def scale(self) -> Box:
        """The colour scale bar, 0% at its left end and 100% at its right."""
        top = _TITLE_H + 4
        return MARGIN + 120, top, MARGIN + 120 + 240, top + 14

    def panel(self, index: int) -> Box:
        """The panel of observer `index` (title, row labels, cells, column labels)."""
        width = (WIDTH - 2 * MARGIN - (self.columns - 1) * PANEL_GAP) // self.columns
        row, col = divmod(index, self.columns)
        left = MARGIN + col * (width + PANEL_GAP)
        top = _TITLE_H + _SCALE_H + PANEL_GAP + row * (self.panel_height + PANEL_GAP)
        return left, top, left + width - 1, top + self.panel_height - 1

    def cell_width(self, index: int, count: int) -> int:
        """The width of one snapshot's column in panel `index` with `count` snapshots."""
        left, _, right, _ = self.panel(index)
        room = right - left - _LABEL_W - _PAD
        return max(1, min(MAX_CELL_W, room // max(count, 1)))

    def cell(self, index: int, seat: int, snapshot: int, count: int) -> Box:
        """The cell of `seat` at `snapshot` (of `count`) in observer `index`'s panel."""
        left, top, _, _ = self.panel(index)
        width = self.cell_width(index, count)
        x = left + _LABEL_W + snapshot * width
        y = top + _PANEL_TITLE_H + seat * CELL_H
        return x, y, x + width - 1, y + CELL_H - 1


def render_suspicion_chart(
    tracks: Sequence[SuspicionTrack], names: Sequence[str], roles: Sequence[Role]
) -> bytes:
    """PNG heatmaps of each track's P(Fascist or Hitler) per seat (game over only)."""
    if len(names) != len(roles):
        raise ValueError(f"{len(roles)} roles but {len(names)} names")
    for track in tracks:
        for snapshot in track.snapshots:
            if len(snapshot.marginals) != len(roles):
                raise ValueError(
                    f"{track.observer}'s snapshot {snapshot.label!r} has "
                    f"{len(snapshot.marginals)} seats, not {len(roles)}"
                )
    geometry = ChartGeometry(len(tracks), len(roles))
    image = Image.new("RGB", geometry.size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw_text(draw, (MARGIN, 12), "Suspicion: P(Fascist or Hitler) of each seat", 20, INK)
    _scale(draw, geometry)
    if not tracks:
        draw_centred(draw, geometry.panel(0), "No suspicion was recorded.", 18, INK)
    for index, track in enumerate(tracks):
        _panel(draw, geometry, index, track, names, roles)
    out = io.BytesIO()
    image.save(out, format="PNG")  # zlib level 6: optimize=True is 2.5x slower for 4% less
    return out.getvalue()


def _scale(draw: ImageDraw.ImageDraw, geometry: ChartGeometry) -> None:
    left, top, right, bottom = geometry.scale()
    draw_text(draw, (MARGIN, top + 1), "Liberal 0%", 13, LOW)
    for x in range(left, right + 1):
        draw.line((x, top, x, bottom), fill=heat((x - left) / (right - left)))
    draw.rectangle((left, top, right, bottom), outline=GRID)
    draw_text(draw, (right + 8, top + 1), "100% Fascist", 13, HIGH)
    key = "Columns: the start, then after each session (C: chaos). Grey: the observer itself."
    draw_text(draw, (right + 120, top + 1), key, 13, MUTED, WIDTH - MARGIN - right - 120)


def _column_label(label: str) -> str:
    """'Start' -> '0', 'Session 7' -> '7', 'Chaos' -> 'C': short enough for a column."""
    if label == "Start":
        return "0"
    if label.startswith("Session "):
        return label.removeprefix("Session ")
    return label[:1]


def _panel(
    draw: ImageDraw.ImageDraw,
    geometry: ChartGeometry,
    index: int,
    track: SuspicionTrack,
    names: Sequence[str],
    roles: Sequence[Role],
) -> None:
    panel = geometry.panel(index)
    draw.rectangle(panel, fill=PANEL, outline=GRID)
    title = track.observer
    if track.seat is not None:
        title += f" (seat {track.seat}, {roles[track.seat].value.capitalize()})"
    draw_text(draw, (panel[0] + 8, panel[1] + 7), title, 14, INK, panel[2] - panel[0] - 16)
    count = len(track.snapshots)
    for seat, role in enumerate(roles):
        y = panel[1] + _PANEL_TITLE_H + seat * CELL_H
        letter = _ROLE_LETTER[role]
        draw_text(draw, (panel[0] + 8, y + 3), letter, 11, ROLE_COLOURS[role])
        name = fit(f"{seat} {names[seat]}", 11, _LABEL_W - 30)
        draw_text(draw, (panel[0] + 22, y + 3), name, 11, INK)
    if count == 0:
        left, top, _, _ = geometry.cell(index, 0, 0, 1)
        box = (left, top, panel[2] - _PAD, top + len(roles) * CELL_H - 1)
        draw_centred(draw, box, "No snapshots recorded", 13, MUTED)
        return
    for i, snapshot in enumerate(track.snapshots):
        for seat, (_, fascist, hitler) in enumerate(snapshot.marginals):
            colour = OWN if seat == track.seat else heat(fascist + hitler)
            draw.rectangle(geometry.cell(index, seat, i, count), fill=colour)
    _x_labels(draw, geometry, index, track)


def _x_labels(
    draw: ImageDraw.ImageDraw, geometry: ChartGeometry, index: int, track: SuspicionTrack
) -> None:
    count = len(track.snapshots)
    width = geometry.cell_width(index, count)
    labels = [_column_label(s.label) for s in track.snapshots]
    widest = max(text_width(label, 10) for label in labels) + 4
    step = max(1, -(-widest // width))  # label every `step`-th column: never overlapping
    for i in range(0, count, step):
        left, _, right, bottom = geometry.cell(index, geometry.seats - 1, i, count)
        x = (left + right - text_width(labels[i], 10)) // 2
        draw_text(draw, (x, bottom + 5), labels[i], 10, MUTED)
