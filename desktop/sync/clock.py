"""Hybrid logical clock stamps: last writer wins per field, robust to clock skew.

A stamp is the wall time in milliseconds shifted left 16 bits plus a counter,
written as 16 hex digits, then a dot and the device id. Stamps compare as strings:
later time first, then the counter, then the device id as a tie-break, so every
device orders any two stamps the same way. The clock never goes back: it stays
ahead of every stamp it has issued or seen, so an edit made after seeing another
device's edit wins over it even when this device's wall clock is behind.
"""

from __future__ import annotations

import time
from collections.abc import Callable

_COUNTER_BITS = 16
_COUNTER_MASK = (1 << _COUNTER_BITS) - 1


def stamp_value(stamp: str) -> int:
    """The clock value of a stamp (without the device id)."""
    return int(stamp.split(".", 1)[0], 16)


def make_stamp(value: int, device_id: str) -> str:
    return f"{value:016x}.{device_id}"


class HybridClock:
    """Issues stamps for one device; ``value`` is persisted by the caller."""

    def __init__(
        self, device_id: str, value: int = 0, *, wall: Callable[[], float] = time.time
    ) -> None:
        self.device_id = device_id
        self.value = value
        self._wall = wall

    def stamp(self, at: float | None = None) -> str:
        """A new stamp for a change made at ``at`` (epoch seconds; default: now).

        Giving the time of the edit rather than of the sync keeps an edit made
        offline from beating a later edit made elsewhere; the clock's own value
        keeps it after everything this device had already seen.
        """
        wall = self._wall() if at is None else min(at, self._wall())
        physical = int(wall * 1000) << _COUNTER_BITS
        self.value = max(self.value + 1, physical)
        return make_stamp(self.value, self.device_id)

    def observe(self, stamp: str) -> None:
        """Move past a stamp seen from another device."""
        self.value = max(self.value, stamp_value(stamp))
