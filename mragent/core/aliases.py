"""Which tag names may name the same thing: the string rules of entity resolution.

A tag is a name as the corpus wrote it, so one entity often has several tags:
"Nintendo", "NINTENDO" and "Nintendo Co., Ltd."; "David Bowie" and "Bowie".
Ingest links such tags with an alias edge (see :mod:`mragent.memory.aliases`);
this module holds the cheap, deterministic half of that decision, the keys two
names must share to be compared at all. The namespace's embedder decides the rest
(the similarity of the two names' vectors, which the traversal's
``aliasThreshold`` gene filters on).

* :func:`alias_key`: the name folded to what its spelling variants share:
  case, punctuation, a trailing parenthetical ("Lilu (mythology)"), a leading
  "the", a possessive and a company's legal form ("Co., Ltd.", "Inc.") go. Names
  with equal keys are spelling variants of one name.
* A person's surname: the last word of a name that reads as a person's (two to four
  capitalised words, particles such as "van der" allowed; no number, no "of", "and",
  "&" or comma (a place: "Rosedale, Camden"), no first word that makes it a place or
  a body, such as "Northern" or "Mount"). A one-word capitalised name equal to it
  ("Bowie") may be that person's short name. Only the last word: a name's first word
  is most often what the rest qualifies ("Vietnam" in "Vietnam War", "Wichita" in
  "Wichita Falls"), measured on the MuSiQue pool
  (``benchmarks/results/aliases.md``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mragent.core.text import STOPWORDS, WORD, words

# Legal forms dropped from the end of a name ("Nintendo Co., Ltd." is "Nintendo").
LEGAL_FORMS = frozenset(
    "co ltd inc corp corporation company plc llc limited gmbh ag sa nv bv srl spa".split()
)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
_LEGAL = re.compile(r"\b(?:" + "|".join(sorted(LEGAL_FORMS)) + r")\b", re.I)
# First words that make a name a place, a body or a part of something, not a person
# ("Northern Ireland", "Mount Kelly", "Real Madrid", "Downtown Fredericton").
QUALIFIERS = frozenset(
    """north south east west northern southern eastern western upper lower greater
    downtown uptown mount mt lake port fort new old saint st san santa real royal
    national central inner outer little big grand great lower best""".split()
)
# Lowercase particles a person's name may carry ("Joannes van der Brugghen").
PARTICLES = frozenset("van der von de da del di du la le bin ibn".split())
_POSSESSIVE = re.compile(r"['’]s\b")
# A short name is compared with at most this many people of that surname; a word
# more names share ("Smith") names no one in particular.
MAX_LONGER = 3


@dataclass(frozen=True)
class NameKeys:
    """The keys a tag name is looked up by (see the module docstring).

    Attributes:
        akey: The folded name (empty for a name with no word).
        tail: Its surname, when it reads as a person's name (else None).
        short: Whether it is one capitalised word that may be a surname.
    """

    akey: str
    tail: str | None
    short: bool

    def params(self) -> dict[str, str | None]:
        """The keys the tag is stored with (``ingest_batch``): a short name is found
        by its folded name, a person by its surname."""
        return {"akey": self.akey, "tail": self.tail}


def alias_key(name: str) -> str:
    """``name`` folded to what its spelling variants share.

    Example:
        >>> alias_key("Nintendo Co., Ltd.") == alias_key("NINTENDO")
        True
    """
    return " ".join(_folded(name))


def name_keys(name: str) -> NameKeys:
    """The keys of a tag name: its folded form, and its surname or short-name mark."""
    folded = _folded(name)
    akey = " ".join(folded)
    if len(folded) == 1:
        # One word as written: "News Corp" folds to "news", but is no one's surname.
        one = len(words(_POSSESSIVE.sub("", name))) == 1
        return NameKeys(akey, None, one and _capitalised(name) and _surname_like(folded[0]))
    return NameKeys(akey, folded[-1] if _person_like(name, folded) else None, False)


def _folded(name: str) -> list[str]:
    tokens = words(_POSSESSIVE.sub("", _PARENTHETICAL.sub("", name)))
    if len(tokens) > 1 and tokens[0] == "the":
        tokens = tokens[1:]
    while len(tokens) > 1 and tokens[-1] in LEGAL_FORMS:
        tokens = tokens[:-1]
    return tokens


def _capitalised(name: str) -> bool:
    first = name.lstrip("\"'“‘(")
    return bool(first) and first[0].isupper()


def _person_like(name: str, folded: list[str]) -> bool:
    """Two to four capitalised words (particles apart), none a number; no "of",
    "and", "&", comma or legal form, no qualifier first: a name that reads as a
    person's."""
    if not 2 <= len(folded) <= 4 or "&" in name or "," in name or _LEGAL.search(name):
        return False
    if folded[0] in QUALIFIERS:
        return False
    for word in WORD.findall(_POSSESSIVE.sub("", name)):
        if word.lower() in PARTICLES:
            continue
        if not word[0].isupper() or word.isdigit() or word.lower() in STOPWORDS:
            return False
    return _surname_like(folded[-1])


def _surname_like(word: str) -> bool:
    """Whether a word may stand for a whole name (letters, at least four, not a stop
    word)."""
    return len(word) >= 4 and word.isalpha() and word not in STOPWORDS
