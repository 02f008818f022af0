"""Tokens, cost and speed per model of the stored answers (the window's Usage page reads
them through its services; the figures are computed in :mod:`desktop.storage.usage_stats`)."""

from __future__ import annotations

from desktop.storage.usage_stats import ModelUsage, usage_by_model

__all__ = ["ModelUsage", "usage_by_model"]
