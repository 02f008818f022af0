"""Spreadsheets: XLSX with openpyxl (pure Python, 3 MB; reads shared strings, dates
and cached formula values correctly, which a hand-written XML walk would not), CSV
with the standard library."""

from __future__ import annotations

import contextlib
import csv
import datetime
import io
from pathlib import Path

from desktop.documents.extract import DocumentError, Section, decode_text, read_bytes

#: Rows read from one sheet: enough for any context, bounded for huge exports.
MAX_ROWS_PER_SHEET = 100_000


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
        return value.date().isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def extract_xlsx(path: Path) -> list[Section]:
    """One section per sheet (``sheet NAME``), rows as tab-separated lines."""
    import zipfile

    from openpyxl import load_workbook

    try:
        # read_only streams rows; data_only gives formulas' last computed values.
        workbook = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise DocumentError(f"{path.name} is damaged or not a real XLSX file "
                            f"({type(exc).__name__})",
                            code="document_not_real",
                            params={"file": path.name, "kind": "XLSX",
                                    "detail": type(exc).__name__}) from None
    sections: list[Section] = []
    try:
        for number, sheet in enumerate(workbook.worksheets, start=1):
            lines = []
            for index, row in enumerate(sheet.iter_rows(values_only=True)):
                if index >= MAX_ROWS_PER_SHEET:
                    lines.append(f"[… rows after {MAX_ROWS_PER_SHEET:,} are not read]")
                    break
                cells = [_cell(v) for v in row]
                while cells and not cells[-1]:
                    cells.pop()
                if cells:
                    lines.append("\t".join(cells))
            sections.append(Section("\n".join(lines), number, f"sheet {sheet.title}"))
    finally:
        workbook.close()
    return sections


def extract_csv(path: Path) -> list[Section]:
    """CSV/TSV rows as tab-separated lines (quoted fields unquoted)."""
    text = decode_text(path.name, read_bytes(path))
    dialect: type[csv.Dialect] | csv.Dialect = (
        csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel)
    # One column, or too irregular to guess: the default dialect.
    with contextlib.suppress(csv.Error):
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    try:
        rows = ["\t".join(row) for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as exc:
        raise DocumentError(f"{path.name} is not valid CSV ({exc})",
                            code="not_csv",
                            params={"file": path.name, "detail": str(exc)}) from None
    return [Section("\n".join(rows))]
