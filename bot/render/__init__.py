"""Renderers: the board image and text, the end-of-game reveal and the suspicion chart."""

from .board import render_board
from .chart import render_suspicion_chart
from .reveal import reveal_text
from .text import board_text

__all__ = ["board_text", "render_board", "render_suspicion_chart", "reveal_text"]
