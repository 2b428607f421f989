"""Genome evaluation fanned out over ``dask.distributed``.

Either a ``LocalCluster`` of worker processes on this machine (one thread
each: an evaluation is CPU-bound Python plus database round trips) or an
existing cluster reached through its scheduler's address. Every worker opens
its own database connection and builds its own
:class:`~mragent.memory.reader.MemoryReader` once (the questions and their query
embeddings, computed once by the parent, come with the plugin), through a worker plugin
registered under a name of this pool's own (so two runs sharing a cluster do
not replace each other's), and keeps it for the pool's life.

A worker of an existing cluster must have mragent installed and reach the
database URL it is given (the embedded FalkorDB listens on loopback only, so
use a database server there). Futures are gathered in submission order, and an
evaluation is deterministic, so the results equal a serial run's.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from contextlib import suppress

from distributed import Client, LocalCluster, WorkerPlugin, get_worker

from mragent.core.errors import BackendUnavailable
from mragent.core.genome import Genome
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.evolution.evaluator import (
    EvaluationPolicy,
    Judged,
    Memories,
    Questions,
    judge_questions,
)
from mragent.memory.reader import MemoryReader

CONNECT_TIMEOUT_S = 20


class MemoryPlugin(WorkerPlugin):
    """Holds one worker's database connection, memory and question set, opened on first use.

    Opening lazily (not in ``setup``) makes a database failure surface as the
    task's own exception, re-raised in the client by ``gather``. The questions
    arrive with their query embeddings, so a worker never embeds a question.
    """

    def __init__(self, name: str, db_url: str, ns: str, questions: Questions) -> None:
        self.name = name
        self.db_url, self.ns = db_url, ns
        self.questions = questions
        self._store: GraphStore | None = None
        self._memories: Memories | None = None

    def memories(self) -> Memories:
        """This worker's memories (connected on the first call)."""
        if self._memories is None:
            self._store = open_store(self.db_url)
            memory = MemoryReader(self._store, self.ns)
            self._memories = Memories(memory, self.questions.without_ns)
        return self._memories

    def teardown(self, worker: object) -> None:
        """Close the connection when the plugin is removed or the worker stops."""
        if self._store is not None:
            self._store.close()
            self._store, self._memories = None, None


def _judge_on_worker(
    plugin: str, genome: Genome, indices: tuple[int, ...], policy: EvaluationPolicy
) -> Judged:
    memory_plugin = get_worker().plugins[plugin]
    assert isinstance(memory_plugin, MemoryPlugin)
    return judge_questions(
        memory_plugin.memories(), memory_plugin.questions, genome, indices, policy
    )


class DaskPool:
    """Judges genomes on a Dask cluster.

    Args:
        db_url: The database URL every worker opens.
        ns: The namespace.
        questions: The questions (with their embeddings) every genome is judged on.
        workers: Worker processes of the LocalCluster (ignored with ``scheduler``).
        scheduler: Address of an existing cluster's scheduler (``tcp://HOST:PORT``).

    Raises:
        BackendUnavailable: when the scheduler cannot be reached.
    """

    def __init__(
        self,
        db_url: str,
        ns: str,
        questions: Questions,
        *,
        workers: int = 1,
        scheduler: str | None = None,
    ) -> None:
        self.cluster: LocalCluster | None = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                raise BackendUnavailable(f"--scheduler {scheduler}: {exc}") from None
        else:
            self.cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster)
        self.plugin = f"mragent-memory-{uuid.uuid4().hex}"
        self.client.register_plugin(MemoryPlugin(self.plugin, db_url, ns, questions))

    @property
    def workers(self) -> int:
        """Workers currently connected to the scheduler."""
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    def map(
        self, jobs: Sequence[tuple[Genome, tuple[int, ...]]], policies: Sequence[EvaluationPolicy]
    ) -> list[Judged]:
        """Judge each ``(genome, question indices)`` job on the workers; results in input order."""
        # pure=False: each call is a task of its own, never merged with an equal one.
        futures = self.client.map(
            _judge_on_worker,
            [self.plugin] * len(jobs),
            [genome for genome, _ in jobs],
            [indices for _, indices in jobs],
            list(policies),
            pure=False,
        )
        return list(self.client.gather(futures))

    def close(self) -> None:
        """Remove this pool's plugin (closing its connections), then the client and cluster."""
        # Workers already gone have nothing left to close.
        with suppress(OSError, TimeoutError, ValueError):
            self.client.unregister_worker_plugin(self.plugin)
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
