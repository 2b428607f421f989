"""Forgetting, purging, and the human review of what an agent forgot.

``forget`` tombstones every version of a memory, cuts its edges and deletes the
tags and cues only it gave rise to; ``purge`` also erases the text, keeping the
hash. The rules:

* an agent forgets only a memory it wrote (every version of it), and a human
  reviews that forget: ``accept`` confirms it, ``reject`` restores the memory
  (its versions live again, their edges, tags and cues rebuilt as they were
  written); :meth:`MemoryForgetting.agent_forgets` is that queue;
* ``purge`` is for humans only: it cannot be undone.

:class:`MemoryForgetting` is the writer's part that does it
(:class:`~mragent.memory.writer.MemoryWriter`), over the namespace's
:class:`~mragent.memory.versions.MemoryVersions`; review gives its verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from mragent.core.corpus import Content
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory import index_files
from mragent.memory.ingest import WriteStamp, content_batch, prepare_write
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord
from mragent.memory.space import staging_namespace
from mragent.memory.versions import MemoryVersions

TRACES_READ = 10_000  # more than any namespace keeps (traces are capped per namespace)


class MemoryForgetting:
    """Forget and purge a memory; the queue of agents' forgets and its verdicts.

    Args:
        versions: The namespace's stored versions and write plumbing.
    """

    def __init__(self, versions: MemoryVersions) -> None:
        self.versions = versions
        self.store, self.ns = versions.store, versions.ns

    def forget(
        self, memory_id: str, *, principal: Principal, reason: str, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """Tombstone every version of a memory and remove what only it gave rise to.

        Returns:
            The ids of the versions tombstoned.

        Raises:
            ConfigError: without a reason.
            WriteRefused: for an unknown id, or an agent forgetting a memory it did
                not write (every version).
            AccessDenied: for a scope outside the principal's write grants.
        """
        if not reason.strip():
            raise ConfigError("--reason is required: say why the memory is forgotten")
        principal.check_write(scope)
        record = self.versions.get(memory_id, scope)
        if principal.is_agent:
            writers = {version.principal for version in self.versions.history(memory_id, scope)}
            if writers != {str(principal)}:
                raise WriteRefused(
                    f"{principal} may forget only memories it wrote; memory {memory_id!r} "
                    f"has versions by {', '.join(sorted(writers - {str(principal)}))}"
                )
        now = self.versions.clock()
        params = {"ns": self.ns, "scopes": [scope], "lineage": record.lineage}
        with self.versions.audited(
            principal, "forget", record.lineage, record.hash, None, {"reason": reason}
        ):
            rows = self.store.run(
                "memory_forget",
                {**params, "at": now, "reason": reason, "principal": str(principal)},
            )
            # The tags cut now, and those a forget interrupted before pruning cut earlier.
            cut = {t for row in rows for t in [*row["tags"], *(row["cut_tags"] or [])]}
            self._prune_orphans(scope, sorted(cut))
            self.versions.rank(scope, sorted({t for row in rows for t in row["tag_names"]}), [])
        return [row["id"] for row in rows]

    def purge(
        self, memory_id: str, *, principal: Principal, reason: str, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """Forget a memory (if not yet) and erase the text of every version.

        The text, title, source and given tags and cues are erased, the traces
        that name it deleted, the staging namespace a killed replace import left
        deleted, and the engine's own copies dropped
        (:meth:`~mragent.core.store.base.GraphStore.erase_residue`). The
        tombstones keep their hash, so identical text stays refused. Humans only.

        Returns:
            The ids of the versions purged.

        Raises:
            WriteRefused: for anyone but a human.
        """
        principal.require_human("purge")
        if not reason.strip():
            raise ConfigError("--reason is required: say why the memory is purged")
        principal.check_write(scope)
        record = self.versions.get(memory_id, scope)
        if not record.forgotten:
            self.forget(memory_id, principal=principal, reason=reason, scope=scope)
        params = {"ns": self.ns, "scopes": [scope], "lineage": record.lineage}
        texts = [v.text for v in self.versions.history(memory_id, scope) if v.text is not None]
        with self.versions.audited(
            principal, "purge", record.lineage, record.hash, None, {"reason": reason}
        ):
            rows = self.store.run("memory_purge", {**params, "at": self.versions.clock()})
            quoting = [
                row["id"]
                for row in self.store.run("trace_get", {"ns": self.ns, "limit": TRACES_READ})
                if any(text in (row["question"] or "") for text in texts)
            ]
            trace_params = {"ns": self.ns, "lineage": record.lineage, "ids": quoting}
            self.store.run("trace_purge", trace_params)
            # What a killed `import --mode replace` staged may hold the text too; the
            # next import would clear it anyway (imports and purges hold the same lock).
            self.store.run("delete_namespace", {"ns": staging_namespace(self.ns)})
        # After the audited write: the engine's own copies (query logs, old file contents).
        self.store.erase_residue()
        # This machine's index copies may hold words of the erased text (readers
        # elsewhere refuse theirs: the namespace records the purge's version).
        space = self.store.run("get_space", {"ns": self.ns})
        index_files.discard(space[0]["uid"] if space else None)
        return [row["id"] for row in rows]

    def agent_forgets(
        self,
        scopes: Sequence[str] = (DEFAULT_SCOPE,),
        limit: int = 100,
        *,
        principal: Principal | None = None,
    ) -> list[dict]:
        """The forgets awaiting a human: memories an agent forgot, oldest forget first."""
        for scope in scopes:
            validate_scope(scope)
        if principal is not None:
            principal.check_read(scopes)
        return self.store.run(
            "memory_agent_forgets", {"ns": self.ns, "scopes": list(scopes), "limit": limit}
        )

    # -- verdicts on an agent's forget (given by review) -------------------------------

    def confirm_forget(self, record: MemoryRecord, principal: Principal) -> None:
        """A human confirms an agent's forget: it leaves the queue, the tombstone stays."""
        with self.versions.audited(
            principal, "accept", record.lineage, record.hash, None, {"forget": "confirmed"}
        ):
            self.store.run("memory_forget_reviewed", self._lineage_params(record, principal))

    def restore(self, record: MemoryRecord, principal: Principal) -> list[str]:
        """A human rejects an agent's forget: every version lives again as it was.

        Each version's tags, cues and edges are rebuilt from its text as its own
        write built them (one content per batch, as remember writes), while it is
        still a tombstone, so no retrieval path sees it half restored; then the
        tombstones are lifted in one statement.

        Returns:
            The ids of the versions restored.
        """
        versions = [v for v in self.versions.history(record.id, record.scope) if v.text is not None]
        prepare_write(self.store, self.ns, self.versions.embedder)  # refuses another embedder
        with self.versions.audited(
            principal, "reject", record.lineage, None, record.hash, {"forget": "restored"}
        ):
            tags: set[str] = set()
            cues: set[str] = set()
            for version in versions:
                stamp = WriteStamp(principal, record.scope, version.trust, version.recorded_at)
                batch = content_batch(
                    _as_content(version), self.versions.extractor, self.versions.embedder,
                    stamp, version.principal,
                )  # fmt: skip
                params = batch.params(self.ns, record.scope, self.versions.audit.seal)
                self.store.run("ingest_batch", params)
                tags.update(tag["name"] for tag in batch.tags)
                cues.update(cue["text"] for cue in batch.cues)
            rows = self.store.run("memory_unforget", self._lineage_params(record, principal))
            self.versions.settle(record.scope, sorted(tags), sorted(cues))
        return [row["id"] for row in rows]

    def _lineage_params(self, record: MemoryRecord, principal: Principal) -> dict:
        return {
            "ns": self.ns,
            "scopes": [record.scope],
            "lineage": record.lineage,
            "principal": str(principal),
            "at": self.versions.clock(),
        }

    def _prune_orphans(self, scope: str, tags: list[str]) -> None:
        if not tags:
            return
        params = {"ns": self.ns, "scopes": [scope]}
        rows = self.store.run("memory_prune_tags", {**params, "tags": tags})
        cues = sorted({c for row in rows for c in row["cues"]})
        if cues:
            self.store.run("memory_prune_cues", {**params, "cues": cues})


def _as_content(version: MemoryRecord) -> Content:
    """The content a stored version was written from (its key, text and given labels)."""
    assert version.text is not None  # purged versions are never restored
    return Content(
        key=version.key,
        text=version.text,
        title=version.title,
        tags=tuple(version.given_tags) if version.given_tags is not None else None,
        cues=tuple(version.given_cues) if version.given_cues is not None else None,
        source=version.source,
    )
