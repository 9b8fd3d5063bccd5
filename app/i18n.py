"""Translations: English source strings, 繁體中文 (zh_Hant) and 简体中文 (zh_Hans) catalogues.

The platform's catalogue lives in ``app/locale/``; each game keeps its own beside its code in
``app/games/<package>/locale/``. A game's pages use the platform's catalogue overlaid with that game's
only, so two games may translate the same English word differently ("red" as 紅 or 紅色). Pages that
list every game use all catalogues together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from gettext import GNUTranslations, NullTranslations
from pathlib import Path
from typing import Any

APP_DIR = Path(__file__).resolve().parent
LOCALES = ("en", "zh_Hant", "zh_Hans")
LOCALE_NAMES = {"en": "English", "zh_Hant": "繁體中文", "zh_Hans": "简体中文"}
HTML_LANG = {"en": "en", "zh_Hant": "zh-Hant", "zh_Hans": "zh-Hans"}
LOCALE_COOKIE = "bourse_lang"


class CatalogueNotCompiled(RuntimeError):
    """A catalogue's .po is newer than its .mo (or it has none): the .mo would say something else."""


class Catalogue(GNUTranslations):
    """One compiled catalogue (``<locale>.mo``), read with the standard library, plural forms included.

    The .mo files are build outputs: scripts/setup, the tests and the image's build stage compile each
    .po (scripts/lib/compile_catalogues.py, with Babel, a dev dependency). The image carries no .po;
    in a checkout, a .po newer than its .mo is refused rather than shown out of date.
    """

    _catalog: dict[str | tuple[str, int], str]  # GNUTranslations' table, which typeshed leaves out

    @classmethod
    def load(cls, mo: Path) -> Catalogue:
        po = mo.with_suffix(".po")
        if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
            raise CatalogueNotCompiled(
                f"{mo} is missing or older than {po.name}: run scripts/setup, which compiles the catalogues"
            )
        with mo.open("rb") as handle:
            return cls(handle)

    def messages(self) -> list[str]:
        """Its English messages (without their context), those with plural forms excepted."""
        # a message with a context is stored as "context\x04message"; the header as ""
        return [key.rpartition("\x04")[2] for key in self._catalog if isinstance(key, str) and key]


def catalogue_files(locale: str, game_package: str | None) -> list[Path]:
    """The compiled catalogues, the platform's first, then the game's (or every game's): later
    entries win. A .po without its .mo is listed too, for Catalogue.load to refuse."""
    games = f"games/{game_package}/locale" if game_package else "games/*/locale"
    found: list[Path] = []
    for folder in ("locale", games):
        found += sorted({path.with_suffix(".mo") for path in APP_DIR.glob(f"{folder}/{locale}.[mp]o")})
    return found


@lru_cache
def translations(locale: str, game_package: str | None = None) -> NullTranslations:
    """The locale's messages: each catalogue falls back to the one before it, so later entries win."""
    chain = NullTranslations()
    if locale not in LOCALES or locale == "en":
        return chain
    for path in catalogue_files(locale, game_package):
        part = Catalogue.load(path)
        part.add_fallback(chain)
        chain = part
    return chain


_BY_TAG = {code.casefold(): code for code in LOCALES} | {
    tag.casefold(): code for code, tag in HTML_LANG.items()
}


def named_locale(name: str | None) -> str | None:
    """The locale a ``?lang=`` or cookie names, by its BCP 47 tag (``zh-Hant``) or our code
    (``zh_Hant``), in any case; None for anything else."""
    return _BY_TAG.get(name.strip().casefold()) if name else None


def choose_locale(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The locale asked for by ``?lang=``, else the cookie, else the browser's languages."""
    for explicit in (query, cookie):
        named = named_locale(explicit)
        if named is not None:
            return named
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if not tag:
            continue
        if tag.startswith("zh"):
            traditional = any(mark in tag for mark in ("hant", "-tw", "-hk", "-mo"))
            return "zh_Hant" if traditional else "zh_Hans"
        if tag.startswith("en"):
            return "en"
    return "en"


LIST_SEPARATORS = {"zh_Hant": "、", "zh_Hans": "、"}  # Chinese lists names with the enumeration comma


def join_list(locale: str, items: Iterable[str]) -> str:
    """Names or things in a row, as the language writes a list ("Ann, Bob" / "Ann、Bob")."""
    return LIST_SEPARATORS.get(locale, ", ").join(items)


# The rest of a locale's punctuation around words a template puts together: Chinese writes the
# full-width colon and parentheses with no space around them, and its dash is two em dashes.
COLONS = {"zh_Hant": "：", "zh_Hans": "："}
PARENTHESES = {"zh_Hant": ("（", "）"), "zh_Hans": ("（", "）")}
DASHES = {"zh_Hant": "——", "zh_Hans": "——"}


def labelled(locale: str, label: str, text: str) -> str:
    """A label and what it labels ("Ann: 12" / "安妮：12")."""
    return f"{label}{COLONS.get(locale, ': ')}{text}"


def parenthetical(locale: str, text: str) -> str:
    """An aside after a word, with the space it takes before it (" (you)" / "（你）")."""
    opening, closing = PARENTHESES.get(locale, (" (", ")"))
    return f"{opening}{text}{closing}"


def dash(locale: str) -> str:
    """The dash between two parts of a sentence (" — " / "——")."""
    return DASHES.get(locale, " — ")


def label_gap(text: str) -> str:
    """A translated label ending in a colon ("Cash:" / "現金："), with the space English puts after
    its colon and Chinese none after its full-width one."""
    return f"{text} " if text.endswith(":") else text


# A bot's stored name, as app.rooms.seats names it: N_("Bot {name}") with one of its N_-marked
# BOT_NAMES, and unique_name's " (2)" when two bots would share it.
BOT_NAME = re.compile(r"Bot (?P<name>[A-Z][a-z]+)(?: \((?P<number>\d+)\))?")


def person_name(locale: str, name: str) -> str:
    """A seat's name as a reader sees it: a bot's ("Bot Ada") in the reader's language (电脑·艾达),
    its number among namesakes in the language's parentheses (电脑·艾达（2）), anybody else's as
    they wrote it."""
    found = BOT_NAME.fullmatch(name)
    if found is None or locale == "en":
        return name
    gettext = translations(locale).gettext
    translated = gettext("Bot {name}").format(name=gettext(found["name"]))
    return translated if found["number"] is None else translated + parenthetical(locale, found["number"])


def format_event(locale: str, event: Mapping[str, Any], name_of: Any, game_package: str | None = None) -> str:
    """One game-log event in a reader's language, in the plural form its ``count`` asks for."""
    return format_message(locale, event["text"], event["params"], name_of, game_package, event.get("plural"))


def format_message(
    locale: str,
    text: str,
    params: Mapping[str, Any],
    name_of: Any,
    game_package: str | None = None,
    plural: str | None = None,
) -> str:
    """Translate an engine message and fill its ``{placeholders}``.

    A param ``{"seat": n}`` becomes the seat's display name; string params are translated too
    (engines pass N_-marked names such as tile or colour names). With ``plural`` (a log text made
    with ``NP_``) the language's form for ``params["count"]`` is used.
    """
    catalogue = translations(locale, game_package)
    gettext = catalogue.gettext
    filled: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, dict) and set(value) == {"seat"}:
            filled[key] = person_name(locale, name_of(value["seat"]))
        elif isinstance(value, dict) and set(value) == {"counted"}:  # base.counted: "2R 1B", units translated
            filled[key] = " ".join(f"{count}{gettext(unit)}" for count, unit in value["counted"]) or "0"
        elif isinstance(value, dict) and set(value) == {"verbatim"}:  # base.verbatim: never translated
            filled[key] = value["verbatim"]
        elif isinstance(value, str):
            filled[key] = gettext(value)
        elif isinstance(value, list):
            filled[key] = join_list(
                locale,
                (
                    person_name(locale, name_of(v["seat"]))
                    if isinstance(v, dict) and set(v) == {"seat"}
                    else gettext(v)
                    if isinstance(v, str)
                    else str(v)
                    for v in value
                ),
            )
        elif isinstance(value, int) and not isinstance(value, bool):
            filled[key] = f"{value:,}"  # exact to the last digit, grouped for reading
        else:
            filled[key] = value
    if plural is not None:
        count = params.get("count")
        chosen = catalogue.ngettext(text, plural, count if isinstance(count, int) else 2)
        english = text if count == 1 else plural
    else:
        chosen, english = gettext(text), text
    try:
        return chosen.format(**filled)
    except (KeyError, IndexError, ValueError):
        return english.format(**filled) if _formats(english, filled) else english


def _formats(text: str, params: Mapping[str, Any]) -> bool:
    try:
        text.format(**params)
    except (KeyError, IndexError, ValueError):
        return False
    return True
