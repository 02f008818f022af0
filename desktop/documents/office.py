"""DOCX and PPTX text with the standard library's zipfile and ElementTree.

python-docx and python-pptx would read the same XML, but they bring lxml (12 MB) and
python-pptx Pillow and XlsxWriter (another 24 MB) into the bundle just to walk the
paragraphs; the tests check these readers on files those libraries write.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from desktop.documents.extract import DocumentError, Section

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
#: Uncompressed bytes read from one package: a zip bomb stops here.
MAX_UNPACKED_BYTES = 200 * 1024 * 1024


def open_package(path: Path, kind: str) -> zipfile.ZipFile:
    try:
        package = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise DocumentError(f"{path.name} is damaged or not a real {kind} file",
                            code="document_not_real",
                            params={"file": path.name, "kind": kind}) from None
    if sum(info.file_size for info in package.infolist()) > MAX_UNPACKED_BYTES:
        package.close()
        raise DocumentError(f"{path.name} unpacks to more than "
                            f"{MAX_UNPACKED_BYTES // (1024 * 1024)} MB; it is not read",
                            code="document_unpacks_too_large",
                            params={"file": path.name,
                                    "limit": MAX_UNPACKED_BYTES // (1024 * 1024)})
    return package


def read_xml(package: zipfile.ZipFile, member: str, path: Path) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(package.read(member))
    except KeyError:
        raise DocumentError(f"{path.name} is damaged: it has no {member}",
                            code="document_damaged",
                            params={"file": path.name, "detail": f"it has no {member}"}) from None
    except (ElementTree.ParseError, zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"{path.name} is damaged ({member}: {exc})",
                            code="document_damaged",
                            params={"file": path.name, "detail": f"{member}: {exc}"}) from None


def _run_text(element: ElementTree.Element) -> str:
    out: list[str] = []
    for node in element.iter():
        if node.tag == f"{W}t" and node.text:
            out.append(node.text)
        elif node.tag == f"{W}tab":
            out.append("\t")
        elif node.tag in (f"{W}br", f"{W}cr"):
            out.append("\n")
    return "".join(out)


def _paragraph(element: ElementTree.Element) -> str:
    text = _run_text(element)
    style = element.find(f"{W}pPr/{W}pStyle")
    name = style.get(f"{W}val", "") if style is not None else ""
    if text.strip() and name.lower().startswith("heading"):
        level = name[7:].strip()
        return "#" * (int(level) if level.isdigit() else 1) + " " + text
    if text.strip() and name.lower() == "title":
        return "# " + text
    return text


def _docx_blocks(body: ElementTree.Element) -> Iterator[str]:
    for child in body:
        if child.tag == f"{W}p":
            yield _paragraph(child)
        elif child.tag == f"{W}tbl":
            for row in child.iter(f"{W}tr"):
                cells = [" ".join(_run_text(p) for p in cell.iter(f"{W}p")).strip()
                         for cell in row.findall(f"{W}tc")]
                yield " | ".join(cells)
        elif child.tag == f"{W}sdt":  # content controls wrap ordinary paragraphs
            content = child.find(f"{W}sdtContent")
            if content is not None:
                yield from _docx_blocks(content)


def extract_docx(path: Path) -> list[Section]:
    """The body's paragraphs (headings as ``#`` lines) and tables (cells joined by
    `` | ``) in document order."""
    with open_package(path, "DOCX") as package:
        root = read_xml(package, "word/document.xml", path)
    body = root.find(f"{W}body")
    if body is None:
        raise DocumentError(f"{path.name} is damaged: its document has no body",
                            code="document_damaged",
                            params={"file": path.name, "detail": "its document has no body"})
    return [Section("\n".join(_docx_blocks(body)))]


def _slide_members(package: zipfile.ZipFile, path: Path) -> list[str]:
    """Slide parts in presentation order (the sldIdLst, through the relationships)."""
    presentation = read_xml(package, "ppt/presentation.xml", path)
    rels = read_xml(package, "ppt/_rels/presentation.xml.rels", path)
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels.iter(f"{REL}Relationship")}
    members = []
    for slide in presentation.iter(f"{P}sldId"):
        target = targets.get(slide.get(f"{R}id"))
        if target:
            members.append(posixpath.normpath(posixpath.join("ppt", target.lstrip("/"))))
    return members


def extract_pptx(path: Path) -> list[Section]:
    """One section per slide (``slide N``): its text frames' paragraphs."""
    sections: list[Section] = []
    with open_package(path, "PPTX") as package:
        for number, member in enumerate(_slide_members(package, path), start=1):
            slide = read_xml(package, member, path)
            lines = ["".join(t.text or "" for t in paragraph.iter(f"{A}t"))
                     for paragraph in slide.iter(f"{A}p")]
            sections.append(Section("\n".join(line for line in lines if line.strip()),
                                    number, f"slide {number}"))
    return sections
