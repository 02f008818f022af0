"""Compare: one question to 2–4 models at once, their answers side by side."""
