"""A document's sections joined into one text for a message, cut to a budget.

A cut is never silent: the text ends with a note saying how much was kept, and the
note is returned for the caller to show the user too.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from desktop.documents.extract import Section


class RenderedText(msgspec.Struct, frozen=True):
    """A document's text for a message, and the note when it was cut."""

    text: str
    note: str | None  # set when the text was cut to the budget


def render_text(name: str, sections: Sequence[Section], max_chars: int,
                *, file_was_cut: bool = False) -> RenderedText:
    """Sections with their labels (``[page 3]``) as headers, at most ``max_chars``
    characters (cut at a line end when one is near). ``file_was_cut``: the caller read
    only the head of the file, so the text is partial even if it fits."""
    pieces: list[str] = []
    for section in sections:
        body = section.text.strip("\n")
        if not body.strip():
            continue
        pieces.append(f"[{section.label}]\n{body}" if section.label else body)
    whole = "\n\n".join(pieces)
    if len(whole) <= max_chars and not file_was_cut:
        return RenderedText(whole, None)
    kept = whole[:max_chars]
    line_end = kept.rfind("\n")
    if line_end > max_chars * 0.9:
        kept = kept[:line_end]
    where = _last_label(sections, kept)
    total = f"of {len(whole):,}" if not file_was_cut else "from the start of the file"
    note = (f"{name} was cut to fit the model's context: {len(kept):,} characters "
            f"{total} are included{where}.")
    return RenderedText(f"{kept}\n\n[… {note}]", note)


def _last_label(sections: Sequence[Section], kept: str) -> str:
    """`` (up to page 12 of 300)`` for paged documents, else nothing."""
    labelled = [s for s in sections if s.label]
    if not labelled:
        return ""
    last = None
    for section in labelled:
        if f"[{section.label}]\n" in kept:
            last = section
    if last is None:
        return ""
    return f" (up to {last.label} of {len(labelled)})"
