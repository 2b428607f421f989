"""Graph stores: one small interface, one implementation per wire protocol.

Part of the core layer: imports nothing above :mod:`mragent.core`.
"""

from mragent.core.store.base import Capabilities, GraphStore, Rows
from mragent.core.store.connect import open_store

__all__ = ["Capabilities", "GraphStore", "Rows", "open_store"]
