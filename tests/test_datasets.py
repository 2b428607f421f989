"""Loaders for MuSiQue and HotpotQA files as released, on tiny fixtures written here."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mragent.apps.baselines import LuceneBM25
from mragent.apps.datasets import (
    dataset_namespace,
    load_dataset,
    load_questions_corpus,
    passage_key,
)
from mragent.core.errors import CorpusError
from mragent.core.extract import RuleExtractor, TitleGazetteer
from mragent.core.retrieval.sparse import BM25

FIXTURES = Path(__file__).parent / "datasets_data"


def test_passage_key_is_stable_and_depends_on_title_and_text() -> None:
    key = passage_key("Vantor Works", "Vantor Works was founded by Mira Quell.")
    assert key == passage_key("Vantor Works", "Vantor Works was founded by Mira Quell.")
    assert key.startswith("vantor-works-")
    assert key != passage_key("Vantor Works", "Vantor Works was founded by someone else.")
    assert key != passage_key("Vantor", "Vantor Works was founded by Mira Quell.")


def test_musique_questions_answers_support_and_kinds() -> None:
    corpus = load_dataset("musique", FIXTURES / "musique_mini.json")
    first, second = corpus.questions
    assert first.id == "2hop__101_202"
    assert first.answers == ("Mira Quell", "M. Quell")
    assert first.kind == "2hop" and second.kind == "3hop"
    assert first.answerable
    titles = {c.key: c.title for c in corpus.contents}
    assert [titles[k] for k in first.supporting] == ["Zorblat kettle", "Vantor Works"]
    # Paragraphs repeated across records are one content: 3 + 3 paragraphs, 4 distinct.
    assert len(corpus.contents) == 4
    assert second.supporting[0] == first.supporting[1]


def test_musique_jsonl_reads_the_same_records() -> None:
    from_json = load_dataset("musique", FIXTURES / "musique_mini.json")
    from_lines = load_dataset("musique", FIXTURES / "musique_mini.jsonl")
    assert from_json.questions == from_lines.questions
    assert from_json.contents == from_lines.contents


def test_musique_pool_supplies_the_contents_in_pool_order() -> None:
    corpus = load_dataset(
        "musique", FIXTURES / "musique_mini.json", FIXTURES / "musique_mini_corpus.json"
    )
    assert [c.title for c in corpus.contents] == [
        "Zorblat kettle",
        "Vantor Works",
        "Elsby",
        "Mira Quell",
        "Dunn",
    ]
    keys = {c.key for c in corpus.contents}
    assert all(k in keys for q in corpus.questions for k in q.supporting)


def test_hotpotqa_support_is_the_titled_paragraphs_and_kind_is_type() -> None:
    corpus = load_dataset(
        "hotpotqa", FIXTURES / "hotpotqa_mini.json", FIXTURES / "hotpotqa_mini_corpus.json"
    )
    bridge, comparison = corpus.questions
    assert (bridge.kind, comparison.kind) == ("bridge", "comparison")
    assert bridge.answers == ("Tin Harbour",)
    by_key = {c.key: c for c in corpus.contents}
    assert [by_key[k].title for k in bridge.supporting] == ["Glass Orchard", "Pell Ardent"]
    # Sentences are joined as released (each after the first carries its space).
    assert (
        by_key[bridge.supporting[0]].text
        == "Glass Orchard is a folk band. Its drummer was Pell Ardent."
    )
    assert "Tin Harbour" in {c.title for c in corpus.contents}  # pool-only passage
    assert len(corpus.contents) == 5


@pytest.mark.parametrize(
    ("dataset", "name", "record", "needle"),
    [
        ("musique", "musique_bad.jsonl", "1", "paragraphs"),
        ("hotpotqa", "hotpotqa_bad.json", "1", "Nowhere"),
    ],
)
def test_a_malformed_record_names_the_file_and_index(
    dataset: str, name: str, record: str, needle: str
) -> None:
    with pytest.raises(CorpusError) as info:
        load_dataset(dataset, FIXTURES / name)
    assert info.value.path.endswith(name)
    assert info.value.record == record
    assert needle in str(info.value)


def test_malformed_json_lines_and_duplicate_ids(tmp_path: Path) -> None:
    lines = tmp_path / "broken.jsonl"
    lines.write_text('{"id": "a"\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"broken.jsonl: record 0 \(line 1\): malformed JSON"):
        load_dataset("musique", lines)
    records = json.loads((FIXTURES / "musique_mini.json").read_text(encoding="utf-8"))
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps([records[0], records[0]]), encoding="utf-8")
    with pytest.raises(CorpusError, match="record 1: duplicate id"):
        load_dataset("musique", dup)
    not_a_list = tmp_path / "obj.json"
    not_a_list.write_text("{}", encoding="utf-8")
    with pytest.raises(CorpusError, match="JSON list"):
        load_dataset("hotpotqa", not_a_list)


def test_load_questions_corpus_routes_formats_and_derives_namespaces(tmp_path: Path) -> None:
    path = FIXTURES / "musique_mini.json"
    pool = FIXTURES / "musique_mini_corpus.json"
    corpus, ns, ident = load_questions_corpus("musique", path, pool)
    assert ident == path and len(corpus.contents) == 5
    assert ns == dataset_namespace("musique", path, pool)
    assert ns != dataset_namespace("musique", path, None)  # the pool is part of the identity
    assert ns.startswith("bench-musique-musique-mini-")
    with pytest.raises(CorpusError, match="needs --path"):
        load_questions_corpus("hotpotqa", None, None)
    own, own_ns, _ = load_questions_corpus(None, None, None)  # the bundled reference corpus
    assert own.questions and own_ns.startswith("bench-reference-")


def test_gazetteer_finds_titles_case_and_disambiguation_aware() -> None:
    gazetteer = TitleGazetteer(["Lilu (mythology)", "Vantor Works", "Music", "Elsby"])
    found = gazetteer.mentions("In music, the Lilu of vantor works lived in Elsby.")
    assert found == ["Lilu (mythology)", "Vantor Works", "Elsby"]  # "music" is not "Music"
    assert gazetteer.mentions("Elsby is in Elsby.", exclude="Elsby") == []


def test_extractor_tags_passages_with_the_titles_they_mention() -> None:
    corpus = load_dataset("musique", FIXTURES / "musique_mini.json")
    extractions = RuleExtractor().extract(corpus.contents)
    by_title = {c.title: e for c, e in zip(corpus.contents, extractions, strict=True)}
    kettle = by_title["Zorblat kettle"]
    assert kettle.primary == "Zorblat kettle"
    assert kettle.tags[1] == "Vantor Works"  # the bridge to the founder's passage
    assert "1931" in kettle.tags
    assert "Elsby" in by_title["Vantor Works"].tags


def test_plain_bm25_keeps_stop_words_and_floors_idf() -> None:
    docs = ["the cat sat", "the dog ran", "the end", "a bird"]
    plain = BM25(docs, stopwords=False)
    default = BM25(docs)
    assert "the" in plain.postings and "the" not in default.postings
    # "the" is in 3 of 4 documents: Okapi IDF is negative, floored to a small positive.
    assert 0 < plain.idf("the") < plain.idf("cat")
    assert plain.top("the cat", 1)[0][0] == 0


def test_lucene_bm25_scores_by_lucenes_idf_and_saturation() -> None:
    docs = ["the cat sat on the mat", "the dog ran", "the end", "a bird sat"]
    k1, b, lengths = 1.5, 0.75, [6, 3, 2, 3]
    avg = sum(lengths) / len(lengths)

    def idf(df: int) -> float:
        return math.log(1 + (4 - df + 0.5) / (df + 0.5))

    def tf(count: int, doc: int) -> float:
        return count / (count + k1 * (1 - b + b * lengths[doc] / avg))

    expected = {
        0: idf(3) * tf(2, 0) + idf(1) * tf(1, 0) + idf(2) * tf(1, 0),
        3: idf(2) * tf(1, 3),
        2: idf(3) * tf(1, 2),
        1: idf(3) * tf(1, 1),
    }
    got = LuceneBM25(docs).top("the cat sat", 4)
    assert [i for i, _ in got] == [0, 3, 2, 1]
    assert dict(got) == pytest.approx(expected, rel=1e-5)
    assert LuceneBM25(docs).top("zebra", 4) == [] and LuceneBM25(docs).top("", 4) == []


def test_bench_reads_a_dataset_and_reports_recall(falkordb_url: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mragent.cli.app import app

    out = tmp_path / "bench.json"
    args = ["bench", "--dataset", "hotpotqa", "--path", str(FIXTURES / "hotpotqa_mini.json")]
    args += ["--corpus", str(FIXTURES / "hotpotqa_mini_corpus.json"), "--db", falkordb_url]
    result = CliRunner().invoke(
        app, [*args, "--ns", f"ds-{tmp_path.name[-20:]}", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    systems = {s["name"]: s for s in report["systems"]}
    assert set(systems) == {
        "mragent",
        "flat bm25 (okapi)",
        "flat bm25 (lucene, bm25s)",
        "flat dense (hashing)",
        "flat hybrid (hashing)",
    }
    # Two passages per question are gold; with five contents, recall@10 is complete.
    assert systems["flat bm25 (okapi)"]["summary"]["recall"]["10"] == 1.0
    assert systems["mragent"]["summary"]["recall"]["10"] == 1.0
    assert "support recall R@2 / R@5 / R@10 by question kind" in " ".join(result.output.split())
    bad = CliRunner().invoke(app, ["bench", "--dataset", "musique", "--db", falkordb_url])
    assert bad.exit_code == 2 and "needs --path" in bad.output
