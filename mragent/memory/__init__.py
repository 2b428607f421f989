"""The trust layer: the memory people and agents write to and read from.

Principals and their credentials (who is calling, proven rather than claimed,
and the scopes each may read and write), memory records, the namespace's space
stamp, the hash-chained audit log and the audited write, ingest, the writer
(:class:`~mragent.memory.writer.MemoryWriter`: remember, correct, forget, purge,
review, trust, with the rules agents cannot route around) and the reader
(:class:`~mragent.memory.reader.MemoryReader`: reconstruction under a read view).

May import :mod:`mragent.core` only.
"""
