"""Keyed items over memories: the address codec and the value filters.

A framework that stores values under a hierarchical namespace and a key (a
LangGraph item) keeps each item as one memory. Its address goes in the memory's
source, as ``langgraph:`` and the JSON array of the namespace labels and the key
(ASCII-escaped, so the source's normalisation cannot change it); its text is the
JSON document of address and value, so two items holding the same value at two
addresses are two memories (a namespace refuses a second memory with identical
text). A namespace prefix is then a source prefix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mragent.core.errors import ConfigError

SOURCE_PREFIX = "langgraph:"


def source_of(namespace: tuple[str, ...], key: str) -> str:
    """The source that addresses the item ``key`` in ``namespace``."""
    return SOURCE_PREFIX + json.dumps([*namespace, key], ensure_ascii=True, separators=(",", ":"))


def source_prefix(namespace_prefix: tuple[str, ...]) -> str:
    """The source prefix every item under ``namespace_prefix`` starts with.

    Each label is a complete JSON string followed by a comma, so ``("a",)`` does
    not reach items under ``("ab",)``.
    """
    if not namespace_prefix:
        return SOURCE_PREFIX + "["
    whole = json.dumps(list(namespace_prefix), ensure_ascii=True, separators=(",", ":"))
    return SOURCE_PREFIX + whole[:-1] + ","


def address_of(source: str) -> tuple[tuple[str, ...], str]:
    """The (namespace, key) a source addresses.

    Raises:
        ConfigError: for a source this codec did not write.
    """
    if not source.startswith(SOURCE_PREFIX):
        raise ConfigError(f"source {source!r} is not an item address")
    try:
        labels = json.loads(source[len(SOURCE_PREFIX) :])
    except ValueError:
        labels = None
    if not isinstance(labels, list) or len(labels) < 2 or any(type(x) is not str for x in labels):
        raise ConfigError(f"source {source!r} is not an item address")
    return tuple(labels[:-1]), labels[-1]


def item_text(namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> str:
    """The memory text of an item: its address and value as one JSON document."""
    document = {"namespace": list(namespace), "key": key, "value": dict(value)}
    return json.dumps(document, ensure_ascii=False, sort_keys=True)


def item_value(text: str) -> dict[str, Any]:
    """The value of an item from its memory text.

    Raises:
        ConfigError: when the text is not an item document.
    """
    try:
        value = json.loads(text)["value"]
    except (ValueError, KeyError, TypeError):
        raise ConfigError("the memory text is not an item document") from None
    if not isinstance(value, dict):
        raise ConfigError("the memory text is not an item document")
    return value


def matches(value: Any, wanted: Any) -> bool:
    """Whether a stored value satisfies a filter, with LangGraph's filter semantics.

    A mapping with ``$``-operators (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
    ``$lte``) compares the value; any other mapping compares field by field
    (nested; a dotted name reaches a nested field); a list compares element by
    element; anything else by equality. An
    ordering against a missing or non-numeric value does not match.
    """
    if isinstance(wanted, Mapping):
        if any(str(name).startswith("$") for name in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(
            matches(field(value, name), part) for name, part in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(matches(v, w) for v, w in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def field(value: Mapping[str, Any], name: str) -> Any:
    """``value[name]``, or for a dotted name absent as such (``"user.level"``), the
    nested field it names; None when missing."""
    if name in value or "." not in name:
        return value.get(name)
    found: Any = value
    for part in name.split("."):
        if not isinstance(found, Mapping):
            return None
        found = found.get(part)
    return found


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ConfigError(f"unsupported filter operator {op!r}")
    try:
        left, right = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[
        op
    ]
