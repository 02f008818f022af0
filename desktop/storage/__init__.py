"""Local persistence: SQLite sessions and settings, secrets. No Qt here."""
