"""Basari (the card game, Reinhard Staupe 2014): secret actions, bargaining with gems, majorities."""

from app.games.basari.engine import BasariEngine

ENGINE = BasariEngine()

__all__ = ["ENGINE"]
