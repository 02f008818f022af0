"""Read aloud and dictation in the window."""
