"""Compile the translation catalogues: ``python scripts/lib/compile_catalogues.py [ROOT]``.

Writes each ``<locale>.po`` under ROOT/app (the platform's ``app/locale``, each game's
``app/games/<pkg>/locale``) to the ``<locale>.mo`` beside it, when the .po is newer than its .mo (or it
has none). Running reads only the .mo, with the standard library (app.i18n); compiling needs Babel, a
dev dependency: scripts/setup, the tests (tests/conftest.py) and the image's build stage run this.
As the app did when it read the .po itself, fuzzy entries are left out and a .po without a
Plural-Forms header gets its locale's (Chinese: one form).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

PATTERNS = ("app/locale/*.po", "app/games/*/locale/*.po")


def stale(root: Path) -> list[Path]:
    """The catalogues whose .mo is missing or older than their .po."""
    found = sorted(po for pattern in PATTERNS for po in root.glob(pattern))
    return [po for po in found if not _fresh(po)]


def _fresh(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime


def compile_catalogue(po: Path) -> Path:
    with po.open("rb") as handle:
        catalog = read_po(handle, locale=po.stem)
    mo = po.with_suffix(".mo")
    # Written aside, then renamed over the old one: a running app or a second compiler never reads
    # half a file.
    with tempfile.NamedTemporaryFile(dir=mo.parent, prefix=mo.name, suffix=".partial", delete=False) as out:
        write_mo(out, catalog)
    os.chmod(out.name, 0o644)  # readable by the user the app runs as (a temporary file is its owner's only)
    os.replace(out.name, mo)
    return mo


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    for po in stale(root):
        print(f"compiled {compile_catalogue(po).relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
