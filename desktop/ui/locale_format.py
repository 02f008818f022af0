"""Numbers, dates and costs written the way the user's language writes them.

Everything goes through the default QLocale, which the start-up code sets to the
language in use (Preferences, else the system's), so "1,234.5" reads "1.234,5" in German
and dates follow the locale's own order and month names.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication, QDate, QDateTime, QLocale, QTime


def _locale() -> QLocale:
    return QLocale()


def integer(value: int) -> str:
    """``1234`` -> "1,234" (en), "1.234" (de), "1 234" (fr)."""
    return _locale().toString(int(value))


def decimal(value: float, digits: int) -> str:
    """A fixed number of decimals with the locale's separators."""
    return _locale().toString(float(value), "f", digits)


def compact_count(value: int) -> str:
    """Token counts in a small space: 950, 1.2k, 35.0k (separators by locale)."""
    if value < 1000:
        return integer(value)
    return QCoreApplication.translate("LocaleFormat", "{number}k").format(
        number=decimal(value / 1000, 1))


def cost(usd: float, digits: int = 2) -> str:
    """A price in US dollars (what providers charge in), written by the locale."""
    return _locale().toCurrencyString(float(usd), "$", digits)


def _qdatetime(when: datetime) -> QDateTime:
    return QDateTime(QDate(when.year, when.month, when.day),
                     QTime(when.hour, when.minute, when.second))


def clock_time(when: datetime) -> str:
    """The locale's short time: "14:05", "2:05 PM"."""
    return _locale().toString(QTime(when.hour, when.minute), QLocale.FormatType.ShortFormat)


def short_date(when: datetime) -> str:
    """The locale's short date: "23/11/2026", "2026/11/23"."""
    return _locale().toString(QDate(when.year, when.month, when.day),
                              QLocale.FormatType.ShortFormat)


def date_time(when: datetime) -> str:
    """The locale's short date and time."""
    return _locale().toString(_qdatetime(when), QLocale.FormatType.ShortFormat)


def stamp(timestamp: float) -> str:
    """A message's time: the clock time today, else date and time."""
    when = datetime.fromtimestamp(timestamp)
    if when.date() == datetime.now().date():
        return clock_time(when)
    return date_time(when)
