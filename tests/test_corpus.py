"""Corpus validation: one line naming the file and the record."""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.synthetic import generate
from mragent.core.corpus import MAX_TEXT, Content, load_corpus, validate_namespace
from mragent.core.corpus_stream import checked_contents
from mragent.core.errors import CorpusError
from mragent.core.extract import Extraction, ExtractionModel, RuleExtractor, RuleModel
from mragent.memory import ingest_source
from mragent.memory.ingest_source import CorpusSource


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


def _contents_file(path: Path, ids: list[str]) -> Path:
    records = [{"id": key, "text": f"{key} is a text of its own."} for key in ids]
    question = {"id": "q", "question": "Which text is a?", "answer": "a", "supporting": ["a"]}
    path.write_text(json.dumps({"contents": records, "questions": [question]}), encoding="utf-8")
    return path


def test_a_file_read_again_keeps_no_ids_and_the_batches_catch_a_change(tmp_path: Path) -> None:
    path = _contents_file(tmp_path / "corpus.json", ["a", "b", "c"])
    source = CorpusSource.of_file(path, batch_size=2)
    assert [q.id for q in source.check(RuleExtractor()).questions] == ["q"]
    # The ingest's batches pass reads the file again: ids are not kept (a million of
    # them are 100 MB), since every batch is compared with the first read instead.
    _contents_file(path, ["a", "a", "c"])
    assert [c.key for c in checked_contents(path, again=True)] == ["a", "a", "c"]
    with pytest.raises(CorpusError, match="changed while it was being ingested"):
        list(source.batches())
    with pytest.raises(CorpusError, match="duplicate id 'a'"):
        list(checked_contents(path))


class _CountingModel:
    """A fitted rule model, counting the contents it extracts."""

    def __init__(self, model: ExtractionModel) -> None:
        self.model = model
        self.extracted = 0

    def extract(self, content: Content) -> Extraction:
        self.extracted += 1
        return self.model.extract(content)


class _CountingExtractor(RuleExtractor):
    """The rule extractor whose fitted model counts its extractions."""

    def fit(self, contents: Iterable[Content]) -> _CountingModel:  # type: ignore[override]
        self.model = _CountingModel(super().fit(contents))
        return self.model


def test_the_batches_read_back_the_extractions_the_count_pass_made(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    records = [
        {"id": f"k{i}", "title": f"Place {i % 7}", "text": f"Place {i % 7} lies near Town {i}."}
        for i in range(25)
    ]
    path.write_text(json.dumps({"contents": records}), encoding="utf-8")
    extractor = _CountingExtractor()
    source = CorpusSource.of_file(path, batch_size=4)
    source.check(extractor)
    assert extractor.model.extracted == 25
    batches = list(source.batches())
    # Each content was extracted once: pass 3 read pass 2's extractions back.
    assert extractor.model.extracted == 25
    assert [len(batch) for batch in batches] == [4] * 6 + [1]
    model = RuleExtractor().fit(checked_contents(path))
    assert [pair for batch in batches for pair in batch] == [
        (content, model.extract(content)) for content in checked_contents(path)
    ]
    # A second read has no spill left: it extracts again, to the same batches.
    assert list(source.batches()) == batches and extractor.model.extracted == 50


def test_a_file_changed_before_the_count_pass_is_refused(tmp_path: Path) -> None:
    path = _contents_file(tmp_path / "corpus.json", ["a", "b", "c"])
    source = CorpusSource.of_file(path, batch_size=2)

    class ChangingExtractor(RuleExtractor):
        def fit(self, contents: Iterable[Content]) -> RuleModel:
            model = super().fit(contents)
            _contents_file(path, ["a", "b", "d"])  # after pass 1 read it, before pass 2
            return model

    with pytest.raises(CorpusError, match="changed while it was being ingested"):
        source.check(ChangingExtractor())


def test_worker_processes_extract_and_count_what_this_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "corpus.json"
    corpus = generate(120, seed=5)
    records = [{"id": c.key, "title": c.title, "text": c.text} for c in corpus.contents]
    path.write_text(json.dumps({"contents": records}), encoding="utf-8")
    pools: list[int] = []

    class CountedPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, workers: int, *args: Any) -> None:
            pools.append(workers)
            super().__init__(workers, *args)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", CountedPool)
    monkeypatch.setattr(ingest_source, "PARALLEL_MIN", 0)
    read = {}
    for workers in (1, 2):
        source = CorpusSource.of_file(path, batch_size=10)
        source.check(RuleExtractor(), workers=workers)
        stats = source.stats
        tags = [stats.tag_name(i) for i in range(stats.tags)]
        counted = [(t, stats.tag_df(t)) for t in tags], dict(stats.kw_df), stats.n
        read[workers] = counted, [pair for batch in source.batches() for pair in batch]
    assert pools == [2]
    assert len(read[1][1]) == 120 and read[2] == read[1]
