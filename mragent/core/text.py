"""Tokenisation and stop words shared by extraction, sparse search and judging."""

from __future__ import annotations

import re
import unicodedata

import regex

# A word is a run of letters, marks and digits in any script ("Vardø", "Zürich's",
# "これは日本語です", "रूसी"), with its apostrophe suffixes. The stdlib's ``re`` has no
# class for combining marks, which Devanagari and other scripts need inside a word.
WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+)?")

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing down during each few
for from further had has have having he her here hers herself him himself his how i if
in into is it its itself just me more most my myself no nor not now of off on once only
or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your
yours yourself yourselves what's who's whose one two first later many much may might
must new well
""".split()
)


_MARKS = regex.compile(r"\p{Mn}+")


def fold(text: str) -> str:
    """Lowercase, without the accents a query may leave out ("José" and "Jose" are one
    word): compatibility decomposition, then nonspacing marks dropped."""
    return _MARKS.sub("", unicodedata.normalize("NFKD", text.lower()))


def words(text: str) -> list[str]:
    """Folded word tokens (see :func:`fold`)."""
    return WORD.findall(fold(text))


_PLAIN = re.compile(r"[a-z0-9]+")


def plain_words(text: str) -> list[str]:
    """Lowercase ``[a-z0-9]+`` tokens, stop words kept (plain benchmark BM25)."""
    return _PLAIN.findall(text.lower())


def content_words(text: str) -> list[str]:
    """Lowercase word tokens without stop words."""
    return [w for w in words(text) if w not in STOPWORDS]


def count_tokens(text: str) -> int:
    """A model-free context-size measure: whitespace-separated tokens."""
    return len(text.split())
