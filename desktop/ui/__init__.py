"""Qt user interface: the only layer that imports PySide6."""
