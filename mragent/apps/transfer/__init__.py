"""Export and import: a namespace's memories to and from a ``mragent-memories/1`` file.

:mod:`~mragent.apps.transfer.file` is the file format (reading, validating);
:mod:`~mragent.apps.transfer.export` writes one; :mod:`~mragent.apps.transfer.importer`
reads one into a namespace, merging or replacing, through the writes in
:mod:`~mragent.apps.transfer.write`.
"""
