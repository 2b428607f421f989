"""The trust layer: the memory people and agents write to and read from.

Principals, memory records, the namespace's space stamp, the hash-chained
audit log and the audited write, ingest, the writer
(:class:`~mragent.memory.writer.Memories`: remember, correct, forget, purge,
review, trust) and the reader (:class:`~mragent.memory.reader.Memory`:
reconstruction under a read view).

May import :mod:`mragent.core` only.
"""
