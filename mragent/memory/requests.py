"""One memory to write, as every surface hands it to the writer.

The command line, the MCP tools and the Python facade each parse their own
input (options, tool arguments, Python arguments) and build one
:class:`WriteRequest`; :meth:`~mragent.memory.writer.MemoryWriter.write` takes
it. Its fields are checked and normalised once, when it is built, with the
limits ingest applies, so no surface repeats them and none can skip them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mragent.core.corpus import Content, checked_body, checked_name, checked_names
from mragent.core.errors import ConfigError
from mragent.core.times import check_time
from mragent.core.view import validate_scope


@dataclass(frozen=True)
class WriteRequest:
    """A new memory: its text, where it lives, its labels and when it holds.

    Args:
        text: What to remember.
        scope: The scope it lives in (None: the surface's default, e.g. the
            session's scope; the writer's is ``shared``).
        title: A title; it also becomes the memory's primary tag.
        source: Where it comes from.
        cues, tags: Given cues and tags (extracted ones are added to them).
        depends_on: Ids of versions (same scope) this memory rests on; rejecting
            one of them returns this memory to pending.
        valid_from, valid_to: When the fact holds in the world (epoch seconds);
            default from the write's time, open ended.
        readmit: Write it even when identical text was forgotten.

    Raises:
        ConfigError: naming the field (as its command-line option), for an empty
            or oversized text, a name that cannot be stored, a bad scope or a time
            that is not a finite number.
    """

    text: str
    scope: str | None = None
    title: str | None = None
    source: str | None = None
    cues: Sequence[str] | None = None
    tags: Sequence[str] | None = None
    depends_on: Sequence[str] = ()
    valid_from: float | None = None
    valid_to: float | None = None
    readmit: bool = False

    def __post_init__(self) -> None:
        if self.scope is not None:
            validate_scope(self.scope)
        checked: dict[str, object] = {
            "valid_from": check_time(self.valid_from, "valid_from"),
            "valid_to": check_time(self.valid_to, "valid_to"),
        }
        try:
            checked["text"] = checked_body(self.text, "the memory text")
            # An empty title or source means none, as an absent option does.
            for name, option in (("title", "--title"), ("source", "--source")):
                value = getattr(self, name)
                checked[name] = checked_name(value, option) if value not in (None, "") else None
            for name, option in (("tags", "--tag"), ("cues", "--cue")):
                value = getattr(self, name)
                checked[name] = checked_names(value, option) if value is not None else None
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        checked["depends_on"] = tuple(self.depends_on)
        for name, value in checked.items():
            # Frozen: the checked forms replace what was given, once, here.
            object.__setattr__(self, name, value)

    def content(self, key: str) -> Content:
        """The content version ``key`` is written from."""
        return Content(
            key=key, text=self.text, title=self.title, source=self.source,
            tags=None if self.tags is None else tuple(self.tags),
            cues=None if self.cues is None else tuple(self.cues),
        )  # fmt: skip
