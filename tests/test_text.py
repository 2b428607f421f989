"""Words of every script: the tokenizer behind sparse search, keyword cues and evidence."""

from __future__ import annotations

from mragent.core.text import content_words, words


def test_words_keep_letters_of_every_script_whole() -> None:
    assert words("Vardø and Łódź") == ["vardø", "and", "łodz"]
    assert words("これは日本語") == ["これは日本語"]
    assert words("Это русский") == words("это РУССКИЙ") and len(words("Это русский")) == 2
    assert len(words("यह रूसी है")) == 3  # vowel signs are marks inside a word, not breaks


def test_accents_a_query_leaves_out_still_match() -> None:
    assert words("José Jiménez") == words("Jose JIMENEZ") == ["jose", "jimenez"]
    assert words("ﬁnance café") == ["finance", "cafe"]  # compatibility forms fold too


def test_apostrophes_and_stop_words_as_before() -> None:
    assert words("Zürich's don't O'Neill") == ["zurich's", "don't", "o'neill"]
    assert content_words("The tower of Vardø") == ["tower", "vardø"]
