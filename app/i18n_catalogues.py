"""Keep the translation catalogues complete: ``python -m app.i18n_catalogues [--update] [PART ...]``.

Each catalogue covers one part of the code: the platform (``app/locale``) or one game
(``app/games/<pkg>/locale``). This module extracts every translatable string of a part (N_/_ in
Python, _/gettext/ngettext/pgettext/trans in templates, parsed with every extension the app's
templates use, so a template it cannot read is an error, never skipped), reports what a catalogue
lacks, and with
``--update`` adds missing entries — filling 简体中文 from 繁體中文 with OpenCC when it is installed
(a dev dependency), so a translator only writes one Chinese text and reviews the other.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from app.games.registry import ENGINES, package_of

APP = Path(__file__).resolve().parent
ROOT = APP.parent
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "N_": None,
    "NP_": (1, 2),
}
# The extensions the app's Jinja environment has (app.web.render.environment): a tag the extractor
# does not know would make it skip the whole template; ``silent`` false makes that an error instead.
TEMPLATE_OPTIONS = {
    "extensions": "jinja2.ext.i18n,app.web.render:FragmentCache",
    "trimmed": "false",
    "silent": "false",
}
TRANSLATED_LOCALES = ("zh_Hant", "zh_Hans")


@dataclass(frozen=True)
class Part:
    name: str
    sources: tuple[Path, ...]
    locale_dir: Path


def parts() -> list[Part]:
    found = [
        Part(
            "platform",
            tuple(
                p
                for p in sorted(APP.rglob("*.py"))
                if "games" not in p.relative_to(APP).parts[:1] or p.name in ("base.py", "registry.py")
            )
            + tuple(sorted((ROOT / "templates" / "platform").glob("*.html"))),
            APP / "locale",
        )
    ]
    for game_id in sorted(ENGINES):
        package = package_of(game_id)
        assert package is not None, game_id  # the registry loads each engine from its package
        found.append(
            Part(
                game_id,
                tuple(sorted((APP / "games" / package).rglob("*.py")))
                + tuple(sorted((ROOT / "templates" / "games" / game_id).rglob("*.html"))),
                APP / "games" / package / "locale",
            )
        )
    return found


Key = tuple[str, str | None]  # (msgid, context)


def extract(part: Part) -> dict[Key, str | tuple[str, str]]:
    """(msgid, context) -> msgid, or (singular, plural) for plural forms."""
    messages: dict[Key, str | tuple[str, str]] = {}
    for path in part.sources:
        method = "jinja2.ext:babel_extract" if path.suffix == ".html" else "python"
        options = TEMPLATE_OPTIONS if path.suffix == ".html" else {}
        for _line, message, _comments, context in extract_from_file(
            method, str(path), keywords=KEYWORDS, options=options
        ):
            if isinstance(message, tuple):
                if message[0]:
                    messages[(message[0], context)] = (message[0], message[1])
            elif message:
                messages[(message, context)] = message
    return messages


def load(part: Part, locale: str) -> Catalog:
    path = part.locale_dir / f"{locale}.po"
    if not path.exists():
        return Catalog(locale=locale, project="Bourse", fuzzy=False)
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def missing(part: Part, locale: str) -> list[str]:
    catalog = load(part, locale)
    gaps = []
    for (msgid, context), message in extract(part).items():
        entry = catalog.get(msgid, context=context)
        if entry is None or not entry.string or (isinstance(entry.string, tuple) and not all(entry.string)):
            gaps.append(msgid)
        elif isinstance(message, tuple) != entry.pluralizable:
            # gettext() never finds a plural entry, nor ngettext() a singular one: the reader gets English
            gaps.append(
                f"{msgid} (the code asks for {'plural forms' if isinstance(message, tuple) else 'one form'})"
            )
    return gaps


def update(part: Part) -> None:
    try:
        from opencc import OpenCC

        to_simplified = OpenCC("t2s").convert
    except ImportError:  # pragma: no cover - a dev dependency
        to_simplified = None
    messages = extract(part)
    traditional = load(part, "zh_Hant")
    for locale in TRANSLATED_LOCALES:
        catalog = load(part, locale)
        for (key, context), message in messages.items():
            entry = catalog.get(key, context=context)
            if entry is not None and entry.string:
                continue
            source = traditional.get(key, context=context)
            string: str | tuple[str, str] = "" if isinstance(message, str) else ("", "")
            if locale == "zh_Hans" and to_simplified and source is not None and source.string:
                string = (
                    to_simplified(source.string)
                    if isinstance(source.string, str)
                    else tuple(to_simplified(s) for s in source.string)
                )
            catalog.add(message, string, context=context)
        part.locale_dir.mkdir(parents=True, exist_ok=True)
        with (part.locale_dir / f"{locale}.po").open("wb") as handle:
            write_po(handle, catalog, width=0, omit_header=False, sort_output=False, ignore_obsolete=True)


def main(argv: list[str]) -> int:
    gaps = 0
    names = [arg for arg in argv if not arg.startswith("--")]
    for part in parts():
        if names and part.name not in names:
            continue
        if "--update" in argv:
            update(part)
        for locale in TRANSLATED_LOCALES:
            lacking = missing(part, locale)
            gaps += len(lacking)
            for msgid in lacking:
                print(f"{part.name} {locale}: missing {msgid!r}")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
