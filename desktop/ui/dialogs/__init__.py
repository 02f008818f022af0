"""Application dialogs: Preferences and About."""
