"""Translations: English source strings, 繁體中文 (zh_Hant) and 简体中文 (zh_Hans) catalogues.

The platform's catalogue lives in ``app/locale/``; each game keeps its own beside its code in
``app/games/<package>/locale/``. A game's pages use the platform's catalogue overlaid with that game's
only, so two games may translate the same English word differently ("red" as 紅 or 紅色). Pages that
list every game use all catalogues together.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

APP_DIR = Path(__file__).resolve().parent
LOCALES = ("en", "zh_Hant", "zh_Hans")
LOCALE_NAMES = {"en": "English", "zh_Hant": "繁體中文", "zh_Hans": "简体中文"}
HTML_LANG = {"en": "en", "zh_Hant": "zh-Hant", "zh_Hans": "zh-Hans"}
LOCALE_COOKIE = "bourse_lang"


def catalogue_files(locale: str, game_package: str | None) -> list[Path]:
    """The platform's catalogue first, then the game's (or every game's): later entries win."""
    games = f"games/{game_package}/locale/{locale}.po" if game_package else f"games/*/locale/{locale}.po"
    return [*APP_DIR.glob(f"locale/{locale}.po"), *sorted(APP_DIR.glob(games))]


@lru_cache
def translations(locale: str, game_package: str | None = None) -> NullTranslations:
    if locale not in LOCALES or locale == "en":
        return NullTranslations()
    merged: Translations | None = None
    for path in catalogue_files(locale, game_package):
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=locale)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        part = Translations(fp=buffer)
        if merged is None:
            merged = part
        else:
            merged.merge(part)
    return merged or NullTranslations()


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


# A bot's stored name, as app.rooms.seats names it: N_("Bot {name}") with one of its N_-marked
# BOT_NAMES, and unique_name's " (2)" when two bots would share it.
BOT_NAME = re.compile(r"Bot (?P<name>[A-Z][a-z]+)(?P<suffix> \(\d+\))?")


def person_name(locale: str, name: str) -> str:
    """A seat's name as a reader sees it: a bot's ("Bot Ada") in the reader's language (电脑·艾达),
    anybody else's as they wrote it."""
    found = BOT_NAME.fullmatch(name)
    if found is None or locale == "en":
        return name
    gettext = translations(locale).gettext
    return gettext("Bot {name}").format(name=gettext(found["name"])) + (found["suffix"] or "")


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
