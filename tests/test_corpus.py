"""Corpus validation: one line naming the file and the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mragent.core.corpus import MAX_TEXT, load_corpus, validate_namespace
from mragent.core.errors import CorpusError


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "c.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


GOOD = {"id": "a", "text": "Some text."}


@pytest.mark.parametrize(
    "data, needle",
    [
        ('{"contents": [', "malformed JSON at line 1"),
        ([1, 2], "top level must be a JSON object"),
        ({"contents": []}, "'contents' must be a non-empty list"),
        ({"contents": [GOOD, {"text": "x"}]}, "record contents[1]: missing field 'id'"),
        ({"contents": [GOOD, {"id": 3, "text": "x"}]}, "contents[1]: field 'id' must be a string"),
        ({"contents": [{"id": "a", "text": "   "}]}, "contents[0]: field 'text' is empty"),
        ({"contents": [{"id": "a", "text": "x" * (MAX_TEXT + 1)}]}, "limit 20000"),
        ({"contents": [GOOD, GOOD]}, "contents[1]: duplicate id 'a'"),
        ({"contents": [{**GOOD, "tags": "A"}]}, "field 'tags' must be a list"),
        (
            {"contents": [GOOD], "questions": [{"id": "q", "question": "?"}]},
            "questions[0]: missing field 'answer'",
        ),
        (
            {
                "contents": [GOOD],
                "questions": [{"id": "q", "question": "?", "answer": "a", "supporting": ["nope"]}],
            },
            "supporting id 'nope' is not a content id",
        ),
        ({"format": "other/9", "contents": [GOOD]}, "format 'other/9'"),
    ],
)
def test_bad_corpus_names_file_and_record(tmp_path: Path, data: object, needle: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(CorpusError) as info:
        load_corpus(path)
    message = str(info.value)
    assert str(path) in message and needle in message and "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="cannot read"):
        load_corpus(tmp_path / "nope.json")


@pytest.mark.parametrize("ns", ["", "a b", "x'}) DETACH DELETE n //", "-lead", "a" * 65, "ä"])
def test_namespace_characters_are_checked(ns: str) -> None:
    with pytest.raises(CorpusError, match="namespace"):
        validate_namespace(ns)


def test_good_corpus_loads_with_optional_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "contents": [{**GOOD, "title": "T", "tags": ["A"], "cues": []}],
            "questions": [{"id": "q", "question": "?", "answerable": False}],
        },
    )
    corpus = load_corpus(path)
    assert corpus.contents[0].tags == ("A",) and corpus.contents[0].cues == ()
    assert corpus.questions[0].answerable is False and corpus.questions[0].answers == ()
