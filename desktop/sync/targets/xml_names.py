"""Reading the XML of WebDAV and S3 servers by the elements' local names: servers differ
in the namespaces (and prefixes) they answer with, and none of them matters here."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator


def local_name(tag: str) -> str:
    """``{namespace}Key`` -> ``Key``."""
    return tag.rpartition("}")[2]


def children(element: ET.Element, name: str) -> Iterator[ET.Element]:
    """The direct children called ``name``, whatever their namespace."""
    return (child for child in element if local_name(child.tag) == name)


def child_text(element: ET.Element, name: str) -> str | None:
    """The text of the first child called ``name``; ``None`` when there is none."""
    return next((child.text or "" for child in children(element, name)), None)
