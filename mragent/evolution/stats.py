"""Distribution-free statistics for measured figures: the median's interval, the sign test.

Both rest on the binomial distribution with p = 1/2, whose tail is a short sum
(scipy would give it, but it is not a dependency). They assume nothing about
the shape of the noise, which on a shared machine is anything but normal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

CONFIDENCE = 0.95
EPS = 1e-9


def binomial_tail(n: int, k: int) -> float:
    """``P(B <= k)`` for ``B ~ Binomial(n, 1/2)``."""
    return sum(math.comb(n, i) for i in range(max(0, k + 1))) / 2**n


def median_interval(
    values: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """Confidence interval of the median from order statistics.

    The interval ``[x(k), x(n+1-k)]`` of the sorted values covers the median
    with probability ``1 - 2 P(B <= k-1)``; ``k`` is the largest that still
    reaches ``confidence``, or 1 (the whole range) when even that falls short.

    Returns:
        ``(low, high, achieved confidence)``.

    Raises:
        ValueError: on no values.
    """
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    n = len(ordered)

    def coverage(k: int) -> float:
        return 1.0 - 2.0 * binomial_tail(n, k - 1)

    k = 1
    while k + 1 <= (n + 1) // 2 and coverage(k + 1) >= confidence - EPS:
        k += 1
    return ordered[k - 1], ordered[n - k], coverage(k)


def sign_test(wins: int, losses: int) -> float:
    """One-sided sign test: the chance of ``wins`` or more of ``wins + losses`` by a coin.

    Ties are left out, as the test prescribes. 1.0 when there is nothing to compare.
    """
    n = wins + losses
    if n == 0:
        return 1.0
    return 1.0 - binomial_tail(n, wins - 1)
