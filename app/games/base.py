"""The contract every game engine fulfils.

An engine is a pure rules library (no I/O, no clock, no global RNG). Its state is a plain
JSON-compatible ``dict`` (ints may be of any size; the platform stores JSON text, never
floats). ``apply`` never mutates its input: it returns a new state or raises ``IllegalAction``.
Every game package binds itself to this contract with ``make_engine``; ``app/games/README.md`` lists
the files each game has and how to add one.

Turn model
    ``to_act(state)`` lists the seats the game is *waiting for* (several for simultaneous secret
    choices). ``legal_actions(state, seat)`` may also be non-empty for seats not in ``to_act``
    (out-of-turn actions such as redeeming a mortgage). Bots act only when their seat is in
    ``to_act``.

Actions
    An action is a JSON object ``{"type": <str>, <param>: <value>, ...}``. Engines must accept
    parameters given as strings (HTML forms send strings) and reject malformed ones with an
    ``IllegalAction`` whose message a player can read.

Legal-action templates (the ``legal`` list), described so a generic client can pick a random
legal action with no game-specific code::

    {"type": "bid", "label": "Bid", "params": {"amount": <domain>, ...}}

    domains:
      {"kind": "int", "min": 0, "max": null | int, "exclude": [ints]}
      {"kind": "choice", "options": [json values]}
      {"kind": "counts", "max": {"red": 3, ...}, "min_total": 1}   # a multiset, e.g. gems
    A template with no params is one concrete action. ``"window": true`` marks an out-of-turn option
    that closes when the game moves on (the Q.E. peek): server bots then give people time to use it.
    Every value inside a domain must be legal,
    except where the template carries ``"constraint": "<human text>"`` (a rule spanning several
    params, e.g. "the offer must beat the current one"); then a client may be refused and tries
    again.

Views and events
    ``view(state, seat)`` (``seat=None`` for a spectator) is everything that seat may know — the
    only thing a template, a JSON answer or a push may carry. Game-log events live in the state as
    ``{"text": N_("{seat} bid {amount}"), "params": {...}, "to": null | [seats], "not_to"?: [seats]}``;
    ``to`` null means public (spectators included), less any seats in ``not_to``. A param of the form ``{"seat": n}`` is rendered as that seat's display name.
    ``visible_events(state, seat)`` gives the events a seat may read.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

State = dict[str, Any]
Action = dict[str, Any]
View = dict[str, Any]


def N_(message: str) -> str:
    """Mark a string for translation without translating it (it is translated when shown)."""
    return message


class IllegalAction(Exception):
    """An action the rules do not allow; ``message`` is a translatable, player-readable text."""

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message.format(**{k: _plain(v) for k, v in params.items()}))
        self.message = message
        self.params = params


def _plain(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"seat"}:
        return f"seat {value['seat'] + 1}"
    if isinstance(value, dict) and set(value) == {"counted"}:
        return " ".join(f"{count}{unit}" for count, unit in value["counted"]) or "0"
    if isinstance(value, dict) and set(value) == {"verbatim"}:
        return value["verbatim"]
    return value


def verbatim(text: str) -> dict[str, str]:
    """An event/message param shown as it is in every language (a string param is translated, and a
    name such as Basari's action card "B" must not become the gem letter "B" of a catalogue)."""
    return {"verbatim": text}


def counted(pairs: list[tuple[int, str]]) -> dict[str, list[list[Any]]]:
    """An event/message param such as ``2R 1B``: counts with short units (N_-marked letters) that each
    language writes its own way (``2紅 1藍``); no pairs reads ``0``."""
    return {"counted": [[count, unit] for count, unit in pairs]}


@dataclass(frozen=True)
class GameInfo:
    """The static description of a game shown in the lobby."""

    id: str
    name_en: str
    name_zh_hant: str
    name_zh_hans: str
    min_players: int
    max_players: int
    minutes: str
    blurb: str  # an English, translatable one-liner (marked with N_)
    options: tuple[GameOption, ...] = field(default_factory=tuple)
    regions: tuple[str, ...] = ("table",)  # template partials in templates/games/<id>/<region>.html
    # Those of ``regions`` drawn from the spectators' view only: the same bytes for every viewer, rendered
    # once per version and shared by every tab (app/web/render/). A region with a seat's secrets or its
    # controls stays out of it.
    public_regions: tuple[str, ...] = ()
    # Game-log texts that open a new round or turn: the log shows them as headings that group what follows.
    log_headings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not set(self.public_regions) <= set(self.regions):
            raise ValueError(f"{self.id}: public_regions must name regions of the game")

    def name(self, locale: str) -> str:
        if locale == "zh_Hant":
            return self.name_zh_hant
        if locale == "zh_Hans":
            return self.name_zh_hans
        return self.name_en


@dataclass(frozen=True)
class GameOption:
    """A boolean room option (a rules variant)."""

    key: str
    label: str  # translatable (N_)
    help: str = ""  # translatable (N_)
    default: bool = False


@dataclass(frozen=True)
class Result:
    """The end of a game: ``winners`` share the win; ``scores`` per seat, for display."""

    winners: list[int]
    scores: list[int | None]

    def to_json(self) -> dict[str, Any]:
        return {"winners": self.winners, "scores": self.scores}


STRENGTHS = ("easy", "normal", "strong")  # strong searches (app/bots/search.py)
DEFAULT_STRENGTH = "normal"


@dataclass(frozen=True)
class Budget:
    """What one bot decision may spend: ``iterations`` caps any search (so a seed gives the same
    decision on any machine) and ``seconds`` is the time behind it (the strong search's CPU time and
    the table's wall-clock patience: ``app/bots/search.py``)."""

    seconds: float = 1.0
    iterations: int = 200


class Engine(Protocol):
    """What ``app.games.registry`` expects of each game module's ``ENGINE``."""

    info: GameInfo

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State: ...

    def to_act(self, state: State) -> list[int]: ...

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]: ...

    def apply(self, state: State, seat: int, action: Action) -> State: ...

    def view(self, state: State, seat: int | None) -> View: ...

    def result(self, state: State) -> Result | None: ...

    def decide(
        self,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        rng: random.Random,
        strength: str = DEFAULT_STRENGTH,
        budget: Budget | None = None,
    ) -> Action: ...

    def bot_action(
        self,
        state: State,
        seat: int,
        rng: random.Random,
        strength: str = DEFAULT_STRENGTH,
        budget: Budget | None = None,
    ) -> Action: ...


class Moves(Protocol):
    """What the generic bot needs: an engine, or a game's ``rules`` module."""

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]: ...

    def apply(self, state: State, seat: int, action: Action) -> State: ...


class Rules(Moves, Protocol):
    """A game's ``rules`` module: the flow of play (see app/games/README.md)."""

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State: ...

    def to_act(self, state: State) -> list[int]: ...

    def result(self, state: State) -> Result | None: ...


class Redaction(Protocol):
    """A game's ``view`` module: what one seat may know."""

    def view(self, state: State, seat: int | None) -> View: ...


class Bot(Protocol):
    """A game's ``bot`` module. It is handed one seat's view, the seat's number and its legal-action
    templates, never the state, so it cannot read what the seat may not know."""

    def bot_action(
        self,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        rng: random.Random,
        strength: str,
        budget: Budget,
    ) -> Action: ...


class Checks(Protocol):
    """A game's ``checks`` module: what the simulator (``app/simulate.py``) and the tests check of every
    position. Play never needs it, so ``registry.checks_of`` imports it only when asked."""

    def invariants(self, state: State) -> list[str]:
        """What is wrong with ``state`` (a card twice in play, negative cash...): nothing, normally."""
        ...

    def disguise(self, state: State, owner: int, rng: random.Random) -> tuple[State, set[int]]:
        """The same table with ``owner``'s secrets (and the hidden deck orders) changed, and the seats
        whose secrets changed: every other seat's view must be the same in both."""
        ...


@dataclass(frozen=True)
class SearchHooks:
    """How the strong bot's search (``app/bots/search.py``) should think about one game, beyond its
    ``determinize``: the game's ``determinize`` module declares it as ``SEARCH`` (one without gets
    these defaults, and ``registry.search_hooks_of`` finds it). By default the normal bot's move
    stands unless another candidate clearly beats it, playouts go to the game's end and are scored
    by the result, the candidates are the generic ones and the move is taken outright."""

    # play the candidate with the best mean score (not the normal bot's move unless clearly beaten)
    best_mean: bool = False
    # a horizon where playouts stop (``playout_over(start, state)``) and the seat's value there
    # (``position_value(state, seat)``): both or neither
    playout_over: Callable[[State, State], bool] | None = None
    position_value: Callable[[State, int], float] | None = None
    # the moves worth weighing besides the normal bot's (None for a decision: the generic ones)
    candidates: Callable[[View, int], list[Action] | None] | None = None
    # a decision's temperature (None: the move is taken outright): the move is then drawn with odds
    # growing as exp(mean / temperature) among the searched candidates
    choice_temperature: Callable[[View], float | None] | None = None
    # a strong decision's playouts (the strong bot's budget, within ``Budget.iterations``): the count
    # its strength was measured at, so that it plays that strong however busy the host
    playouts: int = 16

    def __post_init__(self) -> None:
        if (self.playout_over is None) != (self.position_value is None):
            raise ValueError("a search horizon needs both playout_over and position_value")


class ModuleEngine:
    """The one binding of a game to the ``Engine`` contract: each method calls the function of the same
    name in the game's ``rules``, ``view`` or ``bot`` module. Build one with ``make_engine``."""

    def __init__(self, info: GameInfo, rules: Rules, view: Redaction, bot: Bot) -> None:
        self.info = info
        self._rules = rules
        self._view = view
        self._bot = bot

    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        return self._rules.setup(players, options, seed)

    def to_act(self, state: State) -> list[int]:
        return self._rules.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return self._rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        return self._rules.apply(state, seat, action)

    def view(self, state: State, seat: int | None) -> View:
        return self._view.view(state, seat)

    def result(self, state: State) -> Result | None:
        return self._rules.result(state)

    def decide(
        self,
        view: View,
        seat: int,
        legal: list[dict[str, Any]],
        rng: random.Random,
        strength: str = DEFAULT_STRENGTH,
        budget: Budget | None = None,
    ) -> Action:
        """The game's bot move from one seat's view and legal actions (all a bot is ever given)."""
        return self._bot.bot_action(view, seat, legal, rng, strength, budget or Budget())

    def bot_action(
        self,
        state: State,
        seat: int,
        rng: random.Random,
        strength: str = DEFAULT_STRENGTH,
        budget: Budget | None = None,
    ) -> Action:
        """A harness for code holding the full state (tests, the simulator): it hands the bot only
        ``seat``'s view (without the log, as every bot gets it) and legal actions."""
        return self.decide(
            view_without_log(self, state, seat), seat, self.legal_actions(state, seat), rng, strength, budget
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.info.id!r}>"


def view_without_log(redaction: Redaction, state: State, seat: int | None) -> View:
    """``seat``'s view, redacted by the game's own ``view``, with an empty game log: what a bot is handed.

    No bot reads the log, and it is the one part of a view that grows with the game: copying it made a
    late Basari decision cost milliseconds. Every other field is the full view's, so a bot decides the
    same from either."""
    return redaction.view({**state, "events": []}, seat)


def make_engine(info: GameInfo, *, rules: Rules, view: Redaction, bot: Bot) -> ModuleEngine:
    """A game's ``ENGINE``, made in its ``__init__.py``: ``make_engine(INFO, rules=rules, view=view, bot=bot)``.

    Every game's engine is a plain ``ModuleEngine``: its repr names the game, a traceback passes
    through the game's own modules, and ``registry.package_of`` gives the game's package.
    """
    return ModuleEngine(info, rules, view, bot)


def new_state(game_id: str, players: int, options: dict[str, Any], seed: int) -> State:
    """The fields every state shares; engines add their own."""
    return {
        "game": game_id,
        "players": players,
        "options": dict(options),
        "seed": seed,
        "rng_step": 0,
        "events": [],
        "finished": False,
    }


def draw_rng(state: State) -> random.Random:
    """A fresh deterministic RNG for one random step; advances the counter kept in the state.

    Each step's generator depends only on (seed, step), so replaying the same actions from the
    same seed reproduces every shuffle exactly.
    """
    state["rng_step"] += 1
    return random.Random(f"{state['seed']}/{state['rng_step']}")


@dataclass(frozen=True)
class Refusals:
    """A game's own words for the refusals its ``apply`` opens with, ``N_``-marked in its ``rules.py``
    so that they are in its catalogue (see ``open_apply``)."""

    not_an_action: str
    game_over: str
    not_seated: str


def open_apply(state: State, seat: Any, action: Any, refusals: Refusals) -> Action:
    """The checks every game's ``apply`` opens with, in this order: ``action`` is an object, the game
    is not over, and ``seat`` is a seat at this table (a number: ``True`` is not seat 1). Returns the
    action; the game then checks its type and whether the seat may act, and copies the state."""
    if not isinstance(action, dict):
        raise IllegalAction(refusals.not_an_action)
    if state["finished"]:
        raise IllegalAction(refusals.game_over)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state["players"]:
        raise IllegalAction(refusals.not_seated)
    return action


def copy_state(state: State) -> State:
    """The deep copy ``apply`` works on, so the caller's state is never touched."""
    copied: State = copy_plain(state)
    return copied


def copy_plain(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, tuples of JSON values), several times quicker than
    ``copy.deepcopy``: a state is plain data (it must survive a JSON round trip, which shares nothing),
    so there are no cycles or shared parts to keep. The strong bot's playouts copy states all the time."""
    kind = type(value)
    if kind is dict:
        return {key: copy_plain(item) for key, item in value.items()}
    if kind is list:
        return [copy_plain(item) for item in value]
    if kind is tuple:
        return tuple(copy_plain(item) for item in value)
    return value


def copy_state_sharing_log(state: State) -> State:
    """``copy_state`` without re-copying the game log: logged events are never changed after they are
    written, so the copy's log (a new list) shares them (a deep copy of a long log per action made
    whole games quadratic)."""
    new: State = copy_plain({key: value for key, value in state.items() if key != "events"})
    new["events"] = list(state["events"])
    return new


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a log text that has plural forms, chosen by its ``count`` param in each language:
    ``log_event(state, NP_("{seat} scores {count} point.", "{seat} scores {count} points."), count=n)``."""
    return singular, plural


def log_event(
    state: State,
    text: str | tuple[str, str],
    to: list[int] | None = None,
    not_to: list[int] | None = None,
    **params: Any,
) -> None:
    """Append a game-log event: for the seats ``to``, or public (spectators included) but for ``not_to``.

    ``not_to`` serves the common split where a few seats read a detailed line and everyone else,
    spectators too, a redacted one. A text made with ``NP_`` is stored with its plural
    (``"plural"``) and needs a ``count`` param.
    """
    event: dict[str, Any]
    if isinstance(text, tuple):
        if "count" not in params:
            raise ValueError(f"a plural log text needs a count: {text[0]!r}")
        event = {"text": text[0], "plural": text[1], "params": params, "to": to}
    else:
        event = {"text": text, "params": params, "to": to}
    if not_to:
        event["not_to"] = list(not_to)
    state["events"].append(event)


def seat_ref(seat: int) -> dict[str, int]:
    """An event/message param that renders as the seat's display name."""
    return {"seat": seat}


def visible_events(state: State, seat: int | None) -> list[dict[str, Any]]:
    """The game-log events that ``seat`` (None: a spectator) may read."""
    return [
        e
        for e in state["events"]
        if (e["to"] is None and seat not in e.get("not_to", ()))
        or (seat is not None and seat in (e["to"] or ()))
    ]


def random_legal_action(legal: list[dict[str, Any]], rng: random.Random) -> Action:
    """Pick a random concrete action from legal-action templates (see the module docstring)."""
    template = rng.choice(legal)
    action: Action = {"type": template["type"]}
    for name, domain in template.get("params", {}).items():
        action[name] = sample_domain(domain, rng)
    return action


SAMPLE_WINDOW = 20


def sample_domain(domain: dict[str, Any], rng: random.Random) -> Any:
    kind = domain["kind"]
    if kind == "choice":
        return rng.choice(domain["options"])
    if kind == "int":
        # Random play stays near the minimum: a domain may run to 30-digit numbers.
        low = domain["min"]
        high = low + SAMPLE_WINDOW if domain.get("max") is None else min(domain["max"], low + SAMPLE_WINDOW)
        excluded = set(domain.get("exclude", []))
        candidates = [n for n in range(low, high + 1) if n not in excluded]
        if not candidates:  # the window above min was all excluded: step past it
            candidates = [high + 1 + n for n in range(len(excluded) + 1) if high + 1 + n not in excluded]
        return rng.choice(candidates)
    if kind == "counts":
        counts = {key: 0 for key in domain["max"]}
        pool = [key for key, top in domain["max"].items() for _ in range(top)]
        rng.shuffle(pool)
        want = rng.randint(domain.get("min_total", 0), len(pool))
        for key in pool[:want]:
            counts[key] += 1
        return counts
    raise ValueError(f"unknown domain kind {kind!r}")


def random_bot_action(engine: Moves, state: State, seat: int, rng: random.Random, tries: int = 200) -> Action:
    """The generic bot: random legal actions, re-drawn while the engine refuses them.

    Templates with a ``constraint`` may be refused for some sampled values; a template whose
    domain is all legal is accepted at the first draw.
    """
    legal = engine.legal_actions(state, seat)
    if not legal:
        raise IllegalAction(N_("There is nothing for you to do now."))
    for _ in range(tries):
        action = random_legal_action(legal, rng)
        try:
            engine.apply(state, seat, action)
        except IllegalAction:
            continue
        return action
    raise IllegalAction(N_("No legal action was found for this seat."))
