"""Turning contents into cues and tags, without a model download.

:class:`Extractor` is the interface; :class:`RuleExtractor`, the default, is
deterministic: a content's title is its primary tag; the titles of other
contents that its text mentions come next (a gazetteer built from the corpus's
own titles, so a passage mentioning "Lisbon" links to the tag of the passage
titled "Lisbon", or "Lilu (mythology)": this is what makes bridge passages
reachable); entity-like spans (capitalised n-grams, quoted names, years and
dates) are its other tags; its most distinctive lowercase words are keyword
cues. An LLM extractor can replace it by producing the same :class:`Extraction`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from mragent.core.corpus import Content
from mragent.core.text import STOPWORDS, WORD, content_words

_CAP = r"[A-Z][\w'’.-]*[\w]"
_JOIN_WORDS = ("of", "the", "de", "da", "del", "von", "van", "and", "for", "on", "la", "le", "du")
_JOIN = "(?:" + "|".join(_JOIN_WORDS) + ")"
_ENTITY = re.compile(rf"\b{_CAP}(?:\s+(?:{_JOIN}\s+)*{_CAP})*")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS})\s+\d{{4}}|(?:{_MONTHS})\s+\d{{1,2}},?\s+\d{{4}}"
    rf"|(?:{_MONTHS})\s+\d{{4}})\b"
)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_LEADING = {w.capitalize() for w in STOPWORDS} | {"The", "A", "An", "In", "On", "At"}
MAX_TAGS = 24
MAX_KEYWORDS = 8
MAX_TITLE_WORDS = 8
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")


@dataclass(frozen=True)
class Extraction:
    """What one content contributes to the graph.

    Attributes:
        primary: The tag the content is about (its title, or its first entity).
        tags: Every tag the content mentions, primary first, without duplicates.
        keywords: Lowercase distinctive words, used as keyword cues.
    """

    primary: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]


class ExtractionModel(Protocol):
    """Extracts one content at a time, with what was learned from the whole corpus."""

    def extract(self, content: Content) -> Extraction: ...


class Extractor(Protocol):
    """Produces one :class:`Extraction` per content.

    ``fit`` reads the corpus once (a stream is enough) and returns a model that
    extracts contents one by one, so a corpus larger than memory can be
    extracted; ``extract`` is both steps over a list.
    """

    def fit(self, contents: Iterable[Content]) -> ExtractionModel: ...

    def extract(self, contents: list[Content]) -> list[Extraction]: ...


def entity_spans(text: str) -> list[str]:
    """Entity-like spans of ``text``, in order of first appearance."""
    found: list[str] = []
    for match in _DATE.finditer(text):
        found.append(match.group(0))
    for match in _QUOTED.finditer(text):
        found.append(match.group(1).strip())
    for match in _ENTITY.finditer(text):
        span = match.group(0).rstrip(".")
        parts = span.split()
        while parts and parts[0] in _LEADING:
            parts = parts[1:]  # "The Beatles" keeps "Beatles"; a sentence-initial "In" goes
        while parts and parts[-1].lower() in _JOIN_WORDS:
            parts = parts[:-1]
        if parts and not (len(parts) == 1 and len(parts[0]) < 2):
            found.append(" ".join(parts))
    found.extend(_YEAR.findall(text))
    seen: set[str] = set()
    ordered = []
    for span in found:
        key = span.casefold()
        if key not in seen:
            seen.add(key)
            ordered.append(span)
    return ordered


class TitleGazetteer:
    """Finds mentions of a corpus's titles in text.

    A title matches as its word sequence (case-insensitive), with or without a
    trailing disambiguation such as "(mythology)"; a one-word form must appear
    capitalised, so the title "Music" is not found in "music".
    """

    def __init__(self, titles: list[str]) -> None:
        # A form is its lowercase words joined by spaces (words hold none), and most
        # name one title: a string and the title itself cost a fifth of a tuple of
        # words and a list, which matters at a million titles.
        self.forms: dict[str, str | tuple[str, ...]] = {}
        # The longest form starting with each word: most words start none, and are
        # passed over without a lookup per possible length.
        self.longest: dict[str, int] = {}
        for title in dict.fromkeys(titles):
            for form in {title, _PARENTHETICAL.sub("", title)}:
                words = [w.lower() for w in WORD.findall(form)]
                if not words or len(words) > MAX_TITLE_WORDS or len("".join(words)) < 3:
                    continue
                if len(words) == 1 and (words[0] in STOPWORDS or words[0].isdigit()):
                    continue
                key = " ".join(words)
                known = self.forms.get(key)
                self.forms[key] = title if known is None else (*_titles(known), title)
                self.longest[words[0]] = max(self.longest.get(words[0], 0), len(words))

    def mentions(self, text: str, exclude: str | None = None) -> list[str]:
        """Titles mentioned in ``text`` (longest match first at each position)."""
        tokens = WORD.findall(text)
        lowered = [t.lower() for t in tokens]
        found: list[str] = []
        i = 0
        while i < len(tokens):
            step = 1
            for n in range(min(self.longest.get(lowered[i], 0), len(tokens) - i), 0, -1):
                titles = self.forms.get(" ".join(lowered[i : i + n]))
                if titles and (n > 1 or tokens[i][0].isupper()):
                    found.extend(t for t in _titles(titles) if t != exclude)
                    step = n
                    break
            i += step
        return _dedupe(found)


def _titles(known: str | tuple[str, ...]) -> tuple[str, ...]:
    """The titles a gazetteer form names."""
    return (known,) if isinstance(known, str) else known


@dataclass
class RuleModel:
    """What :class:`RuleExtractor` learns from a corpus: its size, each word's document
    frequency and a gazetteer of its titles."""

    n: int
    df: Counter[str]
    gazetteer: TitleGazetteer

    def extract(self, content: Content) -> Extraction:
        """The tags and keyword cues of one content of the fitted corpus."""
        counts = Counter(content_words(content.text))
        if content.tags:
            tags = list(content.tags)
        else:
            titled = self.gazetteer.mentions(content.text, exclude=content.title)
            tags = _dedupe([*titled, *entity_spans(content.text)])[:MAX_TAGS]
        primary = content.title or (tags[0] if tags else content.key)
        ordered = [primary, *[t for t in tags if t.casefold() != primary.casefold()]]
        tag_words = {w for t in ordered for w in content_words(t)}
        df, n = self.df, self.n
        scored = sorted(
            (
                (tf * math.log(1 + n / df[w]), w)
                for w, tf in counts.items()
                if len(w) > 3 and w not in tag_words and not w.isdigit()
            ),
            reverse=True,
        )
        keywords = (
            content.cues if content.cues is not None else tuple(w for _, w in scored[:MAX_KEYWORDS])
        )
        return Extraction(primary, tuple(_dedupe(ordered)), keywords)


class RuleExtractor:
    """The default, deterministic extractor (see module docstring)."""

    def fit(self, contents: Iterable[Content]) -> RuleModel:
        """Read the corpus once: document frequencies and titles."""
        df: Counter[str] = Counter()
        titles: list[str] = []
        n = 0
        for content in contents:
            n += 1
            df.update(set(content_words(content.text)))
            if content.title:
                titles.append(content.title)
        return RuleModel(n, df, TitleGazetteer(titles))

    def extract(self, contents: list[Content]) -> list[Extraction]:
        model = self.fit(contents)
        return [model.extract(content) for content in contents]


def _dedupe(names: list[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for name in names:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return kept
