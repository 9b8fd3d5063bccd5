"""Chat pushes: a new chat line goes to a room's tabs as it is, drawn once per language, and to the
other processes (``{"kind": "chat", ...}``, see ``app/broadcast.py``), which draw it for theirs. The
lines a mute deleted leave the tabs the same way (``{"kind": "chat", "room": R, "removed": [ids]}``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from app.broadcast import Broadcast, Message
from app.rooms import ChatLine
from app.web.live.fanout import RoomLive

ChatDrawer = Callable[[str, str, ChatLine], Callable[[str], str]]  # (game, room, line) -> draw(locale)


def removal(ids: Sequence[int]) -> str:
    """The push that deletes chat lines from a tab's list (the same in every language)."""
    return "".join(f'<div hx-swap-oob="delete:#chat-{number}"></div>' for number in ids)


class Chat:
    def __init__(self, rooms: Mapping[str, RoomLive], broadcast: Broadcast, draw: ChatDrawer | None) -> None:
        self.rooms = rooms  # this process's open rooms (the fan-out's)
        self.broadcast = broadcast
        self.draw = draw  # how a chat line is drawn here (None: chat is not pushed)

    async def share(self, code: str, game: str, line: ChatLine) -> None:
        """Push a new chat line to the room's tabs, in this process and the others."""
        if self.draw is not None:
            self.push(code, self.draw(game, code, line))
        if self.broadcast.shared:
            await self.broadcast.send({"kind": "chat", "room": code, "game": game, "line": line.to_json()})

    async def remove(self, code: str, ids: Sequence[int]) -> None:
        """Take the chat lines ``ids`` (a mute deleted them) off the room's tabs, in this process and
        the others."""
        if not ids:
            return
        self.push(code, lambda _: removal(ids))
        if self.broadcast.shared:
            await self.broadcast.send({"kind": "chat", "room": code, "removed": list(ids)})

    def heard(self, code: str, message: Message) -> None:
        """Another process shared a chat line of the room, or deleted some: push it to this
        process's tabs."""
        removed = message.get("removed")
        if isinstance(removed, list):
            ids = [number for number in removed if isinstance(number, int)]
            if ids:
                self.push(code, lambda _: removal(ids))
            return
        fields = message.get("line")
        if self.draw is None or not isinstance(fields, dict):
            return
        try:
            line = ChatLine(**{k: v for k, v in fields.items() if k != "spectator"})
        except TypeError:
            return
        self.push(code, self.draw(str(message.get("game")), code, line))

    def push(self, code: str, render: Callable[[str], str]) -> None:
        """Send a chat fragment to this process's tabs of the room: ``render(locale)`` runs once per
        language."""
        room = self.rooms.get(code)
        if room is None:
            return
        made: dict[str, str] = {}
        for tab in room.tabs:
            if tab.locale not in made:
                made[tab.locale] = render(tab.locale)
            tab.push(made[tab.locale])
