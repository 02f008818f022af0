"""Command-line front ends (no Qt imported until the window is asked for)."""
