"""Loaders for public multi-hop QA datasets, in their formats as released.

* **MuSiQue** (Trivedi et al., 2022): a JSON list or JSON-lines file of records
  with ``id``, ``question``, ``answer``, ``answer_aliases``, ``answerable``,
  ``question_decomposition`` and ``paragraphs`` (``idx``, ``title``,
  ``paragraph_text``, ``is_supporting``). An optional pooled corpus is a list of
  ``{"title", "text"}`` passages.
* **HotpotQA** (Yang et al., 2018): a JSON list (or JSON lines) of records with
  ``_id``, ``question``, ``answer``, ``type``, ``supporting_facts``
  (``[title, sentence index]``) and ``context`` (``[title, [sentences]]``). An
  optional pooled corpus is an object ``title -> [sentences]`` (or a list of
  ``{"title", "text"}``).

Both become a :class:`~mragent.core.corpus.Corpus`: each distinct passage is one
:class:`~mragent.core.corpus.Content` keyed by a hash of its title and text (so the
same passage read from a question record and from the pool is one content),
and each record one :class:`~mragent.core.corpus.Question` whose ``supporting`` keys
are its gold passages. With a pool, the contents are the pool's passages plus
any question passage the pool lacks; without one, the union of the records'
passages. A malformed record raises :class:`~mragent.core.errors.CorpusError`
naming the file and the record index.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from mragent.core.corpus import (
    MAX_TEXT,
    Content,
    Corpus,
    Question,
    _Reader,
    load_corpus,
    load_json,
    reference_corpus_path,
)
from mragent.core.errors import CorpusError
from mragent.memory.ingest import GRAPH_LAYOUT

DATASETS = ("musique", "hotpotqa", "mragent")
_SLUG = re.compile(r"[^a-z0-9]+")


def passage_key(title: str, text: str) -> str:
    """A stable content key: a slug of the title and a hash of title and text."""
    digest = hashlib.sha256(f"{title}\x1f{text}".encode()).hexdigest()[:12]
    slug = _SLUG.sub("-", title.casefold()).strip("-")[:40].strip("-")
    return f"{slug or 'passage'}-{digest}"


def read_records(path: Path) -> list[Any]:
    """Records of a JSON list or JSON-lines file.

    Raises:
        CorpusError: on unreadable or malformed input (JSON lines: naming the line).
    """
    if path.suffix.lower() != ".jsonl":
        data = load_json(path)
        if not isinstance(data, list):
            raise CorpusError(str(path), None, "top level must be a JSON list of records")
        return data
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CorpusError(str(path), None, "not UTF-8 text") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CorpusError(
                str(path), f"{len(records)} (line {number})", f"malformed JSON: {exc.msg}"
            ) from None
    return records


class _Passages:
    """Distinct passages in first-seen order, keyed by :func:`passage_key`."""

    def __init__(self) -> None:
        self.by_key: dict[str, Content] = {}

    def add(self, title: str, text: str, source: str) -> str:
        key = passage_key(title, text)
        if key not in self.by_key:
            self.by_key[key] = Content(key=key, text=text, title=title, source=source)
        return key

    def contents(self) -> list[Content]:
        return list(self.by_key.values())


def _text_field(r: _Reader, key: str, limit: int = MAX_TEXT) -> str:
    value = r.record.get(key)
    if not isinstance(value, str):
        r.fail(f"field {key!r} must be a string")
    if len(value) > limit:
        r.fail(f"field {key!r} is {len(value)} characters (limit {limit})")
    return value


def _list_field(r: _Reader, key: str) -> list[Any]:
    value = r.record.get(key)
    if not isinstance(value, list):
        r.fail(f"field {key!r} must be a list")
    return value


def _unique_id(r: _Reader, key: str, seen: set[str]) -> str:
    value = r.record.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        r.fail(f"field {key!r} must be a non-empty string")
    if value in seen:
        r.fail(f"duplicate id {value!r}")
    seen.add(value)
    return value


def _musique_kind(qid: str, hops: int) -> str:
    """``2hop__…`` -> ``2hop``; ``3hop1__…`` -> ``3hop``; else the decomposition length."""
    match = re.match(r"^(\d+)hop", qid)
    return f"{match.group(1)}hop" if match else f"{hops}hop"


def _musique_question(path: str, index: int, raw: Any, passages: _Passages, ids: set[str]):
    r = _Reader(path, str(index), raw)
    qid = _unique_id(r, "id", ids)
    answerable = r.record.get("answerable", True)
    if not isinstance(answerable, bool):
        r.fail("field 'answerable' must be true or false")
    answer = _text_field(r, "answer").strip()
    aliases = r.record.get("answer_aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        r.fail("field 'answer_aliases' must be a list of strings")
    decomposition = r.record.get("question_decomposition") or []
    if not isinstance(decomposition, list):
        r.fail("field 'question_decomposition' must be a list")
    supporting = []
    for j, para in enumerate(_list_field(r, "paragraphs")):
        p = _Reader(path, f"{index} paragraphs[{j}]", para)
        key = passages.add(
            _text_field(p, "title", 1000).strip(), _text_field(p, "paragraph_text"), "musique"
        )
        if p.record.get("is_supporting") is True:
            supporting.append(key)
    answers = tuple(dict.fromkeys(a.strip() for a in [answer, *aliases] if a.strip()))
    if answerable and not answers:
        r.fail("field 'answer' is empty")
    return Question(
        id=qid,
        question=_text_field(r, "question").strip(),
        answers=answers,
        supporting=tuple(dict.fromkeys(supporting)),
        kind=_musique_kind(qid, len(decomposition)),
        answerable=answerable,
    )


def _join_sentences(r: _Reader, key: str, sentences: Any) -> str:
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        r.fail(f"{key} must be a list of sentence strings")
    return "".join(sentences)


def _hotpot_question(path: str, index: int, raw: Any, passages: _Passages, ids: set[str]):
    r = _Reader(path, str(index), raw)
    qid = _unique_id(r, "_id" if "_id" in r.record else "id", ids)
    by_title: dict[str, str] = {}
    for j, item in enumerate(_list_field(r, "context")):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            r.fail(f"context[{j}] must be [title, [sentences]]")
        text = _join_sentences(r, f"context[{j}]", item[1])
        by_title[item[0]] = passages.add(item[0], text, "hotpotqa")
    supporting = []
    for j, fact in enumerate(_list_field(r, "supporting_facts")):
        if not (isinstance(fact, list) and len(fact) == 2 and isinstance(fact[0], str)):
            r.fail(f"supporting_facts[{j}] must be [title, sentence index]")
        if fact[0] not in by_title:
            r.fail(f"supporting_facts[{j}] names {fact[0]!r}, which is not in its context")
        supporting.append(by_title[fact[0]])
    answer = _text_field(r, "answer").strip()
    if not answer:
        r.fail("field 'answer' is empty")
    kind = r.record.get("type", "")
    if not isinstance(kind, str):
        r.fail("field 'type' must be a string")
    return Question(
        id=qid,
        question=_text_field(r, "question").strip(),
        answers=(answer,),
        supporting=tuple(dict.fromkeys(supporting)),
        kind=kind,
    )


def _pool_passages(path: Path, source: str) -> Iterable[tuple[str, str]]:
    """``(title, text)`` pairs of a pooled corpus file (list or title -> sentences)."""
    data = load_json(path)
    where = str(path)
    if isinstance(data, dict):
        for i, (title, sentences) in enumerate(data.items()):
            r = _Reader(where, f"{i} ({title!r})", {"sentences": sentences})
            yield title, _join_sentences(r, "the value", sentences)
        return
    if not isinstance(data, list):
        raise CorpusError(where, None, "a pooled corpus must be a list or an object")
    for i, raw in enumerate(data):
        r = _Reader(where, str(i), raw)
        text_key = "text" if "text" in r.record else "paragraph_text"
        yield _text_field(r, "title", 1000).strip(), _text_field(r, text_key)


Parser = Callable[[str, int, Any, _Passages, set[str]], Question]
_PARSERS: dict[str, Parser] = {"musique": _musique_question, "hotpotqa": _hotpot_question}


def load_dataset(dataset: str, path: str | Path, pool: str | Path | None = None) -> Corpus:
    """Load a MuSiQue or HotpotQA file (and optionally its pooled corpus).

    Args:
        dataset: ``musique`` or ``hotpotqa``.
        path: The questions file (JSON list or ``.jsonl``).
        pool: Optional pooled corpus; its passages come first, in file order.

    Raises:
        CorpusError: naming the file and the record index of the first problem.
        ValueError: for an unknown dataset name.
    """
    if dataset not in _PARSERS:
        raise ValueError(f"unknown dataset {dataset!r}; choose from {', '.join(_PARSERS)}")
    path = Path(path)
    passages = _Passages()
    if pool is not None:
        for title, text in _pool_passages(Path(pool), dataset):
            if text.strip():
                passages.add(title, text, dataset)
    records = read_records(path)
    if not records:
        raise CorpusError(str(path), None, "holds no records")
    ids: set[str] = set()
    parse = _PARSERS[dataset]
    questions = [parse(str(path), i, raw, passages, ids) for i, raw in enumerate(records)]
    return Corpus(passages.contents(), questions, [], name=f"{dataset}-{path.stem}")


def corpus_namespace(corpus_path: Path) -> str:
    """A namespace name derived from a corpus file's content (stable across runs)."""
    hasher = hashlib.sha256(corpus_path.read_bytes())
    # A new graph layout (weights, ranks) must not reuse a namespace built by an older one.
    hasher.update(GRAPH_LAYOUT.encode())
    digest = hasher.hexdigest()[:10]
    stem = "".join(ch if ch.isalnum() else "-" for ch in corpus_path.stem)[:40].strip("-")
    return f"bench-{stem or 'corpus'}-{digest}"


def dataset_namespace(dataset: str, path: Path, pool: Path | None = None) -> str:
    """A namespace derived from the files' content (stable across runs)."""
    digest = hashlib.sha256(dataset.encode())
    # A new graph layout (extractor, weights, ranks) must not reuse an older namespace.
    digest.update(GRAPH_LAYOUT.encode())
    for part in (path, pool):
        if part is not None:
            digest.update(hashlib.sha256(part.read_bytes()).digest())
    stem = "".join(ch if ch.isalnum() else "-" for ch in path.stem)[:30].strip("-")
    return f"bench-{dataset}-{stem or 'data'}-{digest.hexdigest()[:10]}"


def load_questions_corpus(
    dataset: str | None, path: Path | None, corpus: Path | None
) -> tuple[Corpus, str, Path]:
    """What ``bench`` and ``evolve`` read: the corpus, its namespace and its identity file.

    Args:
        dataset: ``musique``, ``hotpotqa``, ``mragent`` or None (the project format).
        path: The dataset file (for ``musique``/``hotpotqa``; for ``mragent``, the
            corpus file, which ``corpus`` may give instead).
        corpus: For ``musique``/``hotpotqa``, the optional pooled corpus; otherwise
            the project-format corpus file (default: the bundled reference corpus).

    Returns:
        ``(corpus, namespace, path)`` where ``path`` is the file whose hash
        identifies the run (the questions file).

    Raises:
        CorpusError: on malformed input or a missing ``path``.
    """
    if dataset in (None, "mragent"):
        chosen = path or corpus or reference_corpus_path()
        return load_corpus(chosen), corpus_namespace(chosen), chosen
    if dataset not in _PARSERS:
        raise CorpusError("--dataset", None, f"unknown dataset {dataset!r}")
    if path is None:
        raise CorpusError("--path", None, f"--dataset {dataset} needs --path FILE")
    data = load_dataset(dataset, path, corpus)
    return data, dataset_namespace(dataset, path, corpus), path
