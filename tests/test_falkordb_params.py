"""The FalkorDB parameter header: the same text the ``falkordb`` client writes.

Round trips through the engine (injection payloads stored as data, every
contract test) run in tests/test_contract.py; here the header is compared with
the client's own, byte for byte, over arbitrary parameter values.
"""

from __future__ import annotations

from typing import Any

from falkordb.helpers import stringify_param_value
from hypothesis import given, settings
from hypothesis import strategies as st

from mragent.core.store.falkordb_params import params_header

_KEYS = st.text(min_size=1).filter(lambda key: "`" not in key)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS | st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1),
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner),
    max_leaves=30,
)


def _client_header(params: dict[str, Any]) -> str:
    return "CYPHER " + "".join(f"`{k}`={stringify_param_value(v)} " for k, v in params.items())


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=4))
def test_header_matches_the_client_byte_for_byte(params: dict[str, Any]) -> None:
    assert params_header(params) == _client_header(params)


def test_strings_stay_literals() -> None:
    evil = 'x" RETURN 1 //\\'
    assert params_header({"t": evil}) == 'CYPHER `t`="x\\" RETURN 1 //\\\\" '


def test_no_parameters_no_header() -> None:
    assert params_header({}) == "" and params_header(None) == ""
