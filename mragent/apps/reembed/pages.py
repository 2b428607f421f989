"""The page loops of a re-embedding (:mod:`mragent.apps.reembed.rewrite`): cues, then contents.

Each pass reads the nodes not yet on the target embedder page by page in id
order, embeds them as passages and writes each page with the re-embedding cursor in
one statement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mragent.core.embedding import Embedder, embed_all, passage_text
from mragent.core.errors import MragentError
from mragent.core.store.base import GraphStore

MAX_SWEEPS = 3  # final sweeps that may still find missed nodes before giving up
CONTENT_CURSOR = "content:"  # prefix of the cursor while contents are rewritten


@dataclass(frozen=True)
class Pass:
    """One kind of node a re-embedding rewrites: its queries and the text it embeds."""

    kind: str  # cues | contents: the write statement's list parameter, and the report's word
    page: str
    write: str
    cursor_prefix: str
    text: Callable[[dict[str, Any]], str]


CUES = Pass("cues", "reembed_page", "reembed_write", "", lambda row: row["text"])
CONTENTS = Pass(
    "contents",
    "reembed_content_page",
    "reembed_content_write",
    CONTENT_CURSOR,
    lambda row: passage_text(row["title"], row["text"]),
)


def count_nodes(store: GraphStore, ns: str, target: str) -> dict[str, int]:
    """``reembed_count`` as integers: cues, contents, pending ones and unembedded contents."""
    row = store.run("reembed_count", {"ns": ns, "target": target})[0]
    return {key: int(value or 0) for key, value in row.items()}


def check_still_reembedding(store: GraphStore, ns: str, target_text: str) -> None:
    """Raise unless ``ns`` is still being re-embedded towards ``target_text``
    (another run may have taken it over)."""
    rows = store.run("reembed_state", {"ns": ns})
    if not rows or rows[0]["migrating_to"] != target_text:
        raise MragentError(
            f"namespace {ns!r} is no longer being re-embedded towards {target_text}: another run "
            "finished or restarted it"
        )


class Rewritten:
    """The page loops of one run: what they rewrote, and the progress they report."""

    def __init__(
        self,
        store: GraphStore,
        ns: str,
        embedder: Embedder,
        batch_size: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.store, self.ns, self.embedder = store, ns, embedder
        self.target = embedder.identity.as_text()
        self.batch_size, self.progress = batch_size, progress
        counts = count_nodes(store, ns, self.target)
        self.totals = {"cues": counts["cues"], "contents": counts["contents"]}
        pending = counts["pending"] + counts["contents_pending"]
        self.done = sum(self.totals.values()) - pending  # on the target already
        self.written = {"cues": 0, "contents": 0}
        self.batches = 0

    def _report(self, count: int) -> None:
        self.done += count
        if self.progress:
            self.progress(self.done, max(sum(self.totals.values()), self.done))

    def rewrite(self, kind: Pass, cursor: str) -> None:
        """Rewrite, page by page from ``cursor``, every node of ``kind`` not on the target.

        Raises:
            MragentError: when nodes keep appearing behind the cursor, or another
                run took the re-embedding over.
        """
        sweeps = 0
        after = cursor
        while True:
            params = {"ns": self.ns, "target": self.target, "after": after}
            rows = self.store.run(kind.page, {**params, "limit": self.batch_size})
            if not rows:
                if after == "":
                    return  # nothing from the very first id on still lacks a target vector
                # Done from the cursor on: sweep from the start for nodes the pages passed
                # by (written behind the cursor while the namespace was being re-embedded).
                sweeps += 1
                if sweeps > MAX_SWEEPS:
                    raise MragentError(
                        f"{kind.kind} keep being written to namespace {self.ns!r} while it "
                        "is re-embedded; stop the writers that bypass the re-embedding fence "
                        "and re-run"
                    )
                after = ""
                continue
            after = rows[-1]["id"]
            count = self._write_page(kind, rows)
            self.written[kind.kind] += count
            self.batches += 1
            self.totals[kind.kind] = max(self.totals[kind.kind], self.written[kind.kind])

    def _write_page(self, kind: Pass, rows: list[dict[str, Any]]) -> int:
        """Embed one page and write it with its cursor; how many nodes were written."""
        identity = self.embedder.identity
        texts = [kind.text(row) for row in rows]
        vectors = embed_all(self.embedder.embed_passages, texts, identity.dimension)
        result = self.store.run(
            kind.write,
            {
                "ns": self.ns,
                "target": self.target,
                "cursor": kind.cursor_prefix + rows[-1]["id"],
                kind.kind: [
                    {"id": row["id"], "embedding": vector.tolist()}
                    for row, vector in zip(rows, vectors, strict=True)
                ],
            },
        )
        count = int(result[0]["written"]) if result else 0  # < page: nodes removed meanwhile
        if count == 0:
            check_still_reembedding(self.store, self.ns, self.target)
        self._report(count)
        return count
