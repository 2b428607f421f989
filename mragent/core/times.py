"""Time values: the one check every epoch-seconds value passes before it is stored
or sent to the database.

A valid time, a record time to read at (``as_of``) and the like are epoch seconds:
a finite number a calendar date can show (years 1 to 9999, so ``iso`` never fails on
a stored value). Text (an ISO-8601 date or date-time, or epoch seconds) is parsed by
:func:`parse_time`; a number from Python is checked by :func:`check_time`. Both raise
one :class:`~mragent.core.errors.ConfigError` line naming the option or argument.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from mragent.core.errors import ConfigError

# datetime.min and datetime.max (UTC) in epoch seconds.
EARLIEST = -62_135_596_800.0
LATEST = 253_402_300_799.0
_EXPECTED = "an ISO-8601 date/time (e.g. 2026-11-30T12:00) or epoch seconds"


def check_time(value: Any, option: str) -> float | None:
    """``value`` as epoch seconds, or None for None.

    Raises:
        ConfigError: naming ``option``, for anything but a finite number between
            years 1 and 9999 (a bool, a string, nan, inf).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(
            f"{option} {value!r}: expected epoch seconds (a number), got {type(value).__name__}"
        )
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond any float
        seconds = math.inf
    if not math.isfinite(seconds) or not EARLIEST <= seconds <= LATEST:
        raise ConfigError(
            f"{option} {value!r}: epoch seconds must be a finite time in years 1-9999"
        )
    return seconds


def parse_time(text: str, option: str) -> float:
    """An ISO-8601 date or date-time (UTC if no zone) or epoch seconds -> epoch seconds.

    Raises:
        ConfigError: naming the option, for text that is neither, or a time
            :func:`check_time` refuses (nan, inf, 1e400).
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is None:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ConfigError(f"{option} {text!r}: expected {_EXPECTED}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
    if not math.isfinite(seconds) or not EARLIEST <= seconds <= LATEST:
        raise ConfigError(f"{option} {text!r}: expected {_EXPECTED} in years 1-9999")
    return seconds


def stored_time(value: Any) -> float | None:
    """A time read back from the database: the number, or None for a value no check
    let through (text, nan, inf stored before times were checked), so one bad value
    does not make a memory unreadable, unreviewable or unforgettable."""
    try:
        return check_time(value, "stored time")
    except ConfigError:
        return None
