"""The message catalogs (docs/i18n.md): complete in every language, nothing stale,
nothing left out of the templates, and the extraction (`make messages`) up to date."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from elgrande.server.i18n.catalogs import LOCALE_DIR, LOCALES

TEMPLATES = Path(__file__).resolve().parents[2] / "elgrande" / "server" / "templates"
TRANSLATED = [code for code in LOCALES if code != "en"]
DOMAINS = ("messages", "js")


def _ids(path: Path) -> set[str]:
    with path.open("rb") as po:
        return {m.id[0] if isinstance(m.id, tuple) else m.id for m in read_po(po) if m.id}


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_and_none_is_stale(lang: str, domain: str) -> None:
    expected = _ids(LOCALE_DIR / f"{domain}.pot")
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as po:
        catalog = read_po(po, locale=lang)
    found = {m.id[0] if isinstance(m.id, tuple) else m.id: m for m in catalog if m.id}
    assert not catalog.obsolete, f"obsolete entries in {lang}/{domain}.po: run make messages"
    assert sorted(expected - set(found)) == [], "missing: run make messages and translate"
    assert sorted(set(found) - expected) == [], "stale: run make messages"
    for key, message in found.items():
        assert "fuzzy" not in message.flags, f"{lang}: fuzzy {key!r}"
        forms = message.string if isinstance(message.string, (tuple, list)) else [message.string]
        assert forms and all(forms), f"{lang}: untranslated {key!r}"
        # A translation may use only the placeholders its message offers.
        offered = set(re.findall(r"%\((\w+)\)s", " ".join(
            message.id if isinstance(message.id, tuple) else [message.id]))) | {"num"}
        used = set(re.findall(r"%\((\w+)\)s", " ".join(forms)))
        assert used <= offered, f"{lang}: {key!r} uses {used - offered}"


def test_the_templates_of_the_catalogs_are_up_to_date(tmp_path: Path) -> None:
    """Extracting again gives the same messages: nothing marked is missing from the
    catalogs (a text added or changed without `make messages` fails here)."""
    root = LOCALE_DIR.parents[1]
    runs = {
        "messages": ["-F", str(LOCALE_DIR / "babel.cfg"), "-k", "N_"],
        "js": ["-F", str(LOCALE_DIR / "babel-js.cfg"), "-k", "t", "-k", "ngettext:1,2"],
    }
    for domain, args in runs.items():
        out = tmp_path / f"{domain}.pot"
        subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract",
                        *args, "-o", str(out), "."], cwd=root, check=True,
                       capture_output=True)
        assert _ids(out) == _ids(LOCALE_DIR / f"{domain}.pot"), f"run make messages ({domain})"


# Words that are the same in every language: names, codes, units, the game's title.
ALLOWED = {"El Grande", "Castillo", "UTC", "JSON"}
_JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
_TAGS = re.compile(r"<script.*?</script>|<[^>]*>", re.S)


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.glob("*.html")))
def test_templates_have_no_text_outside_the_catalogs(template: str) -> None:
    """What a reader sees between the tags is a translated message, a value, or one of
    a few words that no language changes."""
    source = (TEMPLATES / template).read_text(encoding="utf-8")
    # Text inside {% trans %} blocks is in the catalogs; the page's container is a class.
    source = re.sub(r"\{%-? trans.*?endtrans -?%\}", "", source, flags=re.S)
    source = re.sub(r"\{% block container %\}.*?\{% endblock %\}", "", source)
    left = [chunk.strip() for chunk in _TAGS.sub("\n", _JINJA.sub("", source)).split("\n")]
    for word in ALLOWED:
        left = [chunk.replace(word, "") for chunk in left]
    bare = [chunk for chunk in left if re.search(r"[A-Za-z]{2,}", chunk)]
    assert bare == [], f"{template}: text outside the catalogs: {bare}"
    attributes = re.findall(r'(?:title|aria-label|placeholder|alt)="([^"{]*[A-Za-z]{2,}[^"{]*)"',
                            source)
    assert attributes == [], f"{template}: attributes outside the catalogs: {attributes}"
