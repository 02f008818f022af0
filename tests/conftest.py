"""Test-wide setup: Qt runs offscreen, and nothing touches the user's real keyring."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
