"""Tests for desktop.storage."""
