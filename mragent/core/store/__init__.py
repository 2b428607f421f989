"""Graph stores: one small interface, one implementation per wire protocol."""

from mragent.core.store.base import Capabilities, GraphStore, Rows
from mragent.core.store.connect import open_store

__all__ = ["Capabilities", "GraphStore", "Rows", "open_store"]
