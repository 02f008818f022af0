"""Assista Desktop: a native desktop chat client for large language models."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("assista-desktop")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"

APP_NAME = "Assista"
APP_ID = "assista-desktop"
