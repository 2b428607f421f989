"""The generated benchmark memory: deterministic, and able to reach a million contents."""

from __future__ import annotations

import hashlib

import pytest

from mragent.apps import synthetic
from mragent.apps.synthetic import generate


def _digest(contents: int) -> str:
    corpus = generate(contents)
    rows = [(c.key, c.title, c.text) for c in corpus.contents]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def test_a_corpus_is_the_same_in_every_run() -> None:
    # Pinned: the scale benchmark's published figures were measured on these corpora.
    assert _digest(1000) == "2df22d61170d498de3fa6bfede821171d91b917bf439e9eb1f41c7a5130b6d4a"


def test_a_corpus_past_the_short_names_takes_longer_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The short names spell about 208,000 entities: a million contents (500,000
    # entities) once drew names forever. Past the bound every name part is longer.
    short = [c.title for c in generate(100).contents]
    monkeypatch.setattr(synthetic, "SHORT_NAMES_UP_TO", 10)
    long = [c.title for c in generate(100).contents]
    assert len(set(long)) == 50
    # A syllable more in each part: two to four letters more per name.
    assert sum(map(len, long)) / len(long) >= sum(map(len, short)) / len(short) + 2
