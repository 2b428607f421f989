"""Abstention measured where it must generalise: fitted on training questions, judged
on held-out ones, beside today's extractive rule.

:func:`run_abstention` reconstructs every answerable question on the memory and
every constructed unanswerable variant (:mod:`mragent.apps.unanswerable`) on the
memory without its removed passage, under the same genome, and keeps each one's
evidence profile and the extractive synthesizer's own decision. Unless a rule is
given, it fits one (:func:`~mragent.core.retrieval.abstention.fit_rule`) on the
training side only: the training answerables and the variants of training
questions. Both rules are then judged on the questions the fitted rule never saw
(by id: neither the question nor its variant is in the rule's ``fitted_on``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.apps.bench import ensure_ingested
from mragent.apps.judge import answer_in_context
from mragent.apps.unanswerable import (
    Variant,
    sample_variants,
    variant_namespace,
    without_removed,
)
from mragent.core.corpus import Corpus, Question
from mragent.core.embedding import Embedder
from mragent.core.genome import Genome
from mragent.core.retrieval.abstention import AbstentionRule, fit_rule
from mragent.core.retrieval.evidence import FEATURES
from mragent.core.store.base import GraphStore
from mragent.memory.principal import BENCH, Principal
from mragent.memory.reader import MemoryReader


@dataclass(frozen=True)
class Outcome:
    """One reconstruction's evidence and the decisions taken on it.

    Attributes:
        id: The question's id (a variant's ends in ``~u``).
        source: The answerable question it is (or was built from).
        answerable: Whether answering is right.
        evidence: The evidence profile.
        extractive: Whether today's extractive rule abstained.
        in_context: Whether the gold answer is in the context (an answerable question
            whose evidence was found; False for a variant).
    """

    id: str
    source: str
    answerable: bool
    evidence: dict[str, float]
    extractive: bool
    in_context: bool


def collect(
    memory: MemoryReader, without: MemoryReader, questions: Sequence[Question],
    variants: Sequence[Variant], genome: Genome,
) -> list[Outcome]:  # fmt: skip
    """Reconstruct the answerable questions on ``memory`` and the variants on ``without``."""
    out = []
    asked = [(memory, q, q.id) for q in questions if q.answerable]
    asked += [(without, v.question, v.original.id) for v in variants]
    for reader, q, source in asked:
        rec = reader.reconstruct(q.question, genome)
        found = q.answerable and answer_in_context(q.answers, rec.context.evidence_text)
        out.append(Outcome(q.id, source, q.answerable, rec.evidence, rec.answer.abstained, found))
    return out


def fit_on_training(
    outcomes: Sequence[Outcome], train: Sequence[Question], provenance: dict[str, Any]
) -> AbstentionRule:
    """Fit a rule on the outcomes whose source question is a training question."""
    train_ids = {q.id for q in train}
    seen = [o for o in outcomes if o.source in train_ids]
    answerable = [o for o in seen if o.answerable]
    unanswerable = [o for o in seen if not o.answerable]
    return fit_rule(
        [o.evidence for o in answerable],
        [o.evidence for o in unanswerable],
        features=tuple(FEATURES),
        fitted_on={
            **provenance,
            "question_ids": sorted(o.id for o in answerable),
            "variant_ids": sorted(o.id for o in unanswerable),
        },
    )


def fitted_ids(rule: AbstentionRule) -> set[str]:
    """Every question id the rule was fitted on, and the sources of its variants."""
    ids = set(rule.fitted_on.get("question_ids", ()))
    variants = rule.fitted_on.get("variant_ids", ())
    return ids | set(variants) | {v.removesuffix("~u") for v in variants}


def _rates(outcomes: Sequence[Outcome], decide: Any) -> dict[str, float | int]:
    pos = [decide(o) for o in outcomes if o.answerable]
    neg = [decide(o) for o in outcomes if not o.answerable]
    found = [decide(o) for o in outcomes if o.in_context]
    return {
        "answerable": len(pos),
        "unanswerable": len(neg),
        "in_context": len(found),
        "abstention": sum(neg) / len(neg) if neg else 0.0,
        "false_abstention": sum(pos) / len(pos) if pos else 0.0,
        # Abstaining where the evidence did hold the answer: the costly mistake.
        "false_abstention_in_context": sum(found) / len(found) if found else 0.0,
    }


@dataclass(frozen=True)
class AbstentionReport:
    """The rule, the variants, and both rules' rates on the held-out questions."""

    rule: AbstentionRule
    variants: list[Variant]
    outcomes: list[Outcome]
    namespace: str

    @property
    def held_out(self) -> list[Outcome]:
        """Outcomes of questions the rule never saw (neither the question nor its source)."""
        seen = fitted_ids(self.rule)
        return [o for o in self.outcomes if o.id not in seen and o.source not in seen]

    def rates(self) -> dict[str, dict[str, float | int]]:
        """``calibrated`` and ``extractive`` rates on :attr:`held_out`."""
        held = self.held_out
        return {
            "calibrated": _rates(held, lambda o: self.rule.abstains(o.evidence)),
            "extractive": _rates(held, lambda o: o.extractive),
        }

    def to_dict(self) -> dict[str, Any]:
        """The ``abstention`` section of a bench report."""
        held = {o.id for o in self.held_out}
        return {
            "namespace": self.namespace,
            "rule": self.rule.to_dict(),
            "held_out": self.rates(),
            "variants": [
                {"id": v.question.id, "removed": v.removed, "held_out": v.question.id in held}
                for v in self.variants
            ],
            "outcomes": [
                {
                    "id": o.id,
                    "answerable": o.answerable,
                    "held_out": o.id in held,
                    "score": self.rule.score(o.evidence),
                    "calibrated": self.rule.abstains(o.evidence),
                    "extractive": o.extractive,
                    "in_context": o.in_context,
                    "evidence": o.evidence,
                }
                for o in self.outcomes
            ],
        }


def run_abstention(
    store: GraphStore,
    corpus: Corpus,
    ns: str,
    genome: Genome,
    split: tuple[Sequence[Question], Sequence[Question]],
    *,
    sample: int,
    seed: int,
    embedder: Embedder | None = None,
    rule: AbstentionRule | None = None,
    principal: Principal = BENCH,
) -> AbstentionReport:
    """Build the variants, reconstruct, fit on the training side (unless ``rule``).

    Args:
        store: An open store where ``ns`` holds ``corpus``.
        corpus: The corpus (its questions: the answerable ones judged).
        ns: The corpus's namespace.
        genome: The reconstruction's parameters.
        split: ``(train, held_out)`` questions.
        sample: How many unanswerable variants to build.
        seed: Picks the variants and their removed passages.
        embedder: The namespace's embedder (default: the stamped one).
        rule: A fitted rule to judge instead of fitting one.
        principal: Who writes the variant namespace (as :func:`ensure_ingested`).
    """
    train, held_out = split
    variants = sample_variants(train, held_out, sample, seed)
    vns = variant_namespace(ns, variants)
    ensure_ingested(store, without_removed(corpus, variants), vns, embedder, principal=principal)
    memory = MemoryReader(store, ns, embedder=embedder)
    outcomes = collect(memory, MemoryReader(store, vns, embedder=embedder), corpus.questions,
                       variants, genome)  # fmt: skip
    if rule is None:
        provenance = {"corpus": corpus.name, "seed": seed, "genome": genome.to_json_dict()}
        rule = fit_on_training(outcomes, train, provenance)
    return AbstentionReport(rule, variants, outcomes, vns)
