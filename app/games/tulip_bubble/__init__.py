"""Tulip Bubble (郁金香泡沫, Moaideas 2017): speculate on tulips in 1636 Holland, 3–5 players."""

from app.games.tulip_bubble.rules import TulipBubble

ENGINE = TulipBubble()

__all__ = ["ENGINE"]
