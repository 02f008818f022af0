"""What a project adds to the system prompt of each chat in it (pure): its
instructions, then its small files whole, and a line naming where its larger files
are searched."""

from __future__ import annotations

from collections.abc import Sequence

from desktop.core.records import Project, ProjectFile


def _fenced(name: str, text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"File `{name}`:\n{fence}\n{text.rstrip()}\n{fence}"


def project_context(project: Project, files: Sequence[ProjectFile]) -> str:
    """The project's section of the system prompt ("" when it adds nothing)."""
    parts: list[str] = []
    instructions = project.instructions.strip()
    if instructions:
        parts.append(f"This chat is in the project \"{project.name}\". The project's "
                     f"instructions:\n{instructions}")
    whole = [f for f in files if f.content is not None]
    if whole:
        parts.append(f"Files of the project \"{project.name}\":\n\n"
                     + "\n\n".join(_fenced(f.name, f.content or "") for f in whole))
    searched = [f.name for f in files if f.content is None]
    if searched and project.files_base:
        parts.append(f"More files of the project ({', '.join(searched)}) can be searched "
                     f"with the search_knowledge tool in the knowledge base "
                     f"\"{project.files_base}\".")
    return "\n\n".join(parts)
