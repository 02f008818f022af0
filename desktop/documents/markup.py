"""HTML and EPUB with the standard library: html.parser (the same reader fetch_url
uses) and zipfile for EPUB's package."""

from __future__ import annotations

import posixpath
from pathlib import Path

from desktop.documents.extract import DocumentError, Section, decode_text, read_bytes
from desktop.documents.office import open_package, read_xml

CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
OPF = "{http://www.idpf.org/2007/opf}"


def _html_text(html: str) -> tuple[str, str]:
    from desktop.tools.builtins._html import html_to_text

    return html_to_text(html)


def extract_html(path: Path) -> list[Section]:
    title, text = _html_text(decode_text(path.name, read_bytes(path)))
    if title and not text.lstrip().startswith(f"# {title}"):
        text = f"# {title}\n\n{text}"
    return [Section(text)]


def extract_epub(path: Path) -> list[Section]:
    """One section per spine item (``chapter N``), in reading order."""
    with open_package(path, "EPUB") as package:
        container = read_xml(package, "META-INF/container.xml", path)
        rootfile = container.find(f".//{CONTAINER}rootfile")
        opf_path = rootfile.get("full-path", "") if rootfile is not None else ""
        if not opf_path:
            raise DocumentError(f"{path.name} is damaged: no package document",
                                code="document_damaged",
                                params={"file": path.name, "detail": "no package document"})
        opf = read_xml(package, opf_path, path)
        base = posixpath.dirname(opf_path)
        manifest = {item.get("id"): item.get("href", "") for item in opf.iter(f"{OPF}item")}
        sections: list[Section] = []
        for itemref in opf.iter(f"{OPF}itemref"):
            href = manifest.get(itemref.get("idref"))
            if not href:
                continue
            member = posixpath.normpath(posixpath.join(base, href.split("#")[0]))
            try:
                data = package.read(member)
            except KeyError:
                continue  # a spine entry without its file: read the rest
            _title, text = _html_text(data.decode("utf-8", errors="replace"))
            number = len(sections) + 1
            sections.append(Section(text, number, f"chapter {number}"))
    return sections
