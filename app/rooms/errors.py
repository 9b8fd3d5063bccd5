"""The refusals the room service answers with, each with its HTTP status."""

from __future__ import annotations

from typing import Any


class RoomError(Exception):
    """A refusal with an HTTP status and a translatable message for the player."""

    status = 400

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message.format(**params) if params else message)
        self.message = message
        self.params = params


class NotFound(RoomError):
    status = 404


class Forbidden(RoomError):
    status = 403


class Conflict(RoomError):
    status = 409


class Unprocessable(RoomError):
    status = 422
