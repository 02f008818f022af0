"""Projects as stored: a project row, the files added to it, and which chats are in it.

Ids are uuid hex strings (``project_id``), stable across export/import and sync.
Deleting a project moves its chats out of it (they are kept, in no project) and
removes its files' rows; nothing else is deleted.
"""

from __future__ import annotations

import json
import time
from typing import Any

from desktop.core.errors import StorageError
from desktop.core.records import Project, ProjectFile, new_project_id
from desktop.storage.database import Database

_COLUMNS = (
    "id, position, name, instructions, knowledge, workspace, provider_id, model, tools, "
    "files_base, created_at, updated_at, extra"
)
_FILE_COLUMNS = "id, project_id, name, content, path, size, created_at"





class ProjectStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def db(self) -> Database:
        return self._db

    # -- projects ------------------------------------------------------------------

    def list_projects(self) -> list[Project]:
        rows = self._db.query(
            f"SELECT {_COLUMNS} FROM projects ORDER BY position, name COLLATE NOCASE")
        return [_project(row) for row in rows]

    def get(self, project_id: str) -> Project | None:
        row = self._db.query_one(f"SELECT {_COLUMNS} FROM projects WHERE id = ?", (project_id,))
        return _project(row) if row is not None else None

    def find(self, name_or_id: str) -> Project | None:
        """The project with this id, else the one with this name (any case)."""
        found = self.get(name_or_id)
        if found is not None:
            return found
        wanted = " ".join(name_or_id.split()).casefold()
        return next((p for p in self.list_projects() if p.name.casefold() == wanted), None)

    def save(self, project: Project) -> Project:
        """Insert or update by id; names are unique (any case)."""
        name = " ".join(project.name.split())
        if not name:
            raise StorageError("A project needs a name.", code="project_name_needed")
        other = self.find(name)
        if other is not None and other.id != project.id:
            raise StorageError(f"There is already a project named {other.name!r}.",
                               code="project_exists", params={"name": other.name})
        now = time.time()
        values = {
            "id": project.id, "name": name, "instructions": project.instructions,
            "knowledge": json.dumps(list(dict.fromkeys(project.knowledge))),
            "workspace": project.workspace or None, "provider_id": project.provider_id,
            "model": project.model or None,
            "tools": json.dumps(list(project.tools)) if project.tools is not None else None,
            "files_base": project.files_base, "created_at": project.created_at or now,
            "updated_at": now, "extra": json.dumps(project.extra, separators=(",", ":")),
        }
        with self._db.transaction() as conn:
            conn.execute(
                f"INSERT INTO projects ({_COLUMNS}) VALUES (:id, "
                "(SELECT COALESCE(MAX(position), -1) + 1 FROM projects), :name, :instructions, "
                ":knowledge, :workspace, :provider_id, :model, :tools, :files_base, "
                ":created_at, :updated_at, :extra) "
                "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                "instructions = excluded.instructions, knowledge = excluded.knowledge, "
                "workspace = excluded.workspace, provider_id = excluded.provider_id, "
                "model = excluded.model, tools = excluded.tools, "
                "files_base = excluded.files_base, updated_at = excluded.updated_at, "
                "extra = excluded.extra",
                values,
            )
        saved = self.get(project.id)
        if saved is None:  # pragma: no cover - just written
            raise StorageError(f"Project {project.id} could not be saved.",
                               code="project_not_saved", params={"project": project.id})
        return saved

    def delete(self, project_id: str) -> list[str]:
        """Delete the project and its files' rows; returns the ids of the chats that
        were in it (they stay, in no project)."""
        with self._db.transaction() as conn:
            chats = [str(r[0]) for r in conn.execute(
                "SELECT id FROM sessions WHERE project_id = ?", (project_id,))]
            conn.execute("UPDATE sessions SET project_id = NULL WHERE project_id = ?",
                         (project_id,))
            conn.execute("DELETE FROM project_files WHERE project_id = ?", (project_id,))
            conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
        return chats

    # -- chats ---------------------------------------------------------------------

    def chat_ids(self, project_id: str) -> list[str]:
        """Its chats not in the trash, most recent first."""
        rows = self._db.query(
            "SELECT id FROM sessions WHERE project_id = ? AND deleted_at IS NULL "
            "ORDER BY updated_at DESC", (project_id,))
        return [str(r[0]) for r in rows]

    def chat_rows(self, project_id: str) -> list[tuple[str, str]]:
        """(id, title) of its chats not in the trash, most recent first."""
        rows = self._db.query(
            "SELECT id, title FROM sessions WHERE project_id = ? AND deleted_at IS NULL "
            "ORDER BY updated_at DESC", (project_id,))
        return [(str(r[0]), str(r[1])) for r in rows]

    def chat_counts(self) -> dict[str, int]:
        rows = self._db.query(
            "SELECT project_id, COUNT(*) FROM sessions WHERE project_id IS NOT NULL "
            "AND deleted_at IS NULL GROUP BY project_id")
        return {str(r[0]): int(r[1]) for r in rows}

    def move_chat(self, session_id: str, project_id: str | None) -> None:
        """Put a chat in a project (``None``: out of any); its ``updated_at`` is kept."""
        if project_id is not None and self.get(project_id) is None:
            raise StorageError(f"Project {project_id} does not exist.",
                               code="project_missing", params={"project": project_id})
        changed = self._db.execute(
            "UPDATE sessions SET project_id = ? WHERE id = ?", (project_id, session_id))
        if not changed:
            raise StorageError(f"Chat {session_id} does not exist.",
                               code="chat_gone", params={"chat": session_id})

    # -- files ---------------------------------------------------------------------

    def files(self, project_id: str) -> list[ProjectFile]:
        rows = self._db.query(
            f"SELECT {_FILE_COLUMNS} FROM project_files WHERE project_id = ? "
            "ORDER BY created_at, name", (project_id,))
        return [_file(row) for row in rows]

    def add_file(self, file: ProjectFile) -> ProjectFile:
        """Store a file (a file of the same name in the project is replaced)."""
        values = {"id": file.id, "project_id": file.project_id, "name": file.name,
                  "content": file.content, "path": file.path, "size": file.size,
                  "created_at": file.created_at or time.time()}
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM project_files WHERE project_id = ? AND name = ?",
                         (file.project_id, file.name))
            conn.execute(
                f"INSERT INTO project_files ({_FILE_COLUMNS}) VALUES (:id, :project_id, "
                ":name, :content, :path, :size, :created_at)", values)
        return _file(self._db.query_one(
            f"SELECT {_FILE_COLUMNS} FROM project_files WHERE id = ?", (file.id,)))

    def remove_file(self, file_id: str) -> bool:
        return self._db.execute("DELETE FROM project_files WHERE id = ?", (file_id,)) > 0

    # -- whole projects (export / import) ------------------------------------------

    def export_entry(self, project_id: str) -> dict[str, Any] | None:
        """The project and its files as JSON (what is local to this machine left out)."""
        project = self.get(project_id)
        if project is None:
            return None
        return {
            "id": project.id, "name": project.name, "instructions": project.instructions,
            "knowledge": list(project.knowledge), "model": project.model,
            "tools": list(project.tools) if project.tools is not None else None,
            "created_at": project.created_at, "updated_at": project.updated_at,
            "extra": project.extra,
            "files": [{"id": f.id, "name": f.name, "content": f.content, "size": f.size,
                       "created_at": f.created_at} for f in self.files(project_id)],
        }

    def import_entry(self, entry: Any) -> Project | None:
        """Store an exported project; ``None`` when its id is here already."""
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) \
                or not isinstance(entry.get("name"), str):
            raise StorageError("A project in the export is not readable.",
                               code="export_projects_malformed")
        if self.get(entry["id"]) is not None:
            return None
        tools = entry.get("tools")
        extra = entry.get("extra")
        project = self.save(Project(
            id=entry["id"], name=entry["name"], instructions=str(entry.get("instructions") or ""),
            knowledge=tuple(str(k) for k in entry.get("knowledge") or () if k),
            model=entry.get("model") if isinstance(entry.get("model"), str) else None,
            tools=tuple(str(t) for t in tools) if isinstance(tools, list) else None,
            created_at=float(entry.get("created_at") or 0.0),
            extra=extra if isinstance(extra, dict) else {}))
        for raw in entry.get("files") or ():
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
                continue
            content = raw.get("content")
            self.add_file(ProjectFile(
                id=str(raw.get("id") or new_project_id()), project_id=project.id,
                name=raw["name"], content=content if isinstance(content, str) else None,
                size=int(raw.get("size") or 0), created_at=float(raw.get("created_at") or 0)))
        return project


def _json_list(text: str | None) -> list[Any] | None:
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _project(row: Any) -> Project:
    try:
        extra = json.loads(row["extra"]) if row["extra"] else {}
    except ValueError:
        extra = {}
    tools = _json_list(row["tools"])
    return Project(
        id=row["id"], position=int(row["position"]), name=row["name"],
        instructions=row["instructions"] or "",
        knowledge=tuple(str(k) for k in _json_list(row["knowledge"]) or () if k),
        workspace=row["workspace"], provider_id=row["provider_id"], model=row["model"],
        tools=tuple(str(t) for t in tools) if tools is not None else None,
        files_base=row["files_base"], created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]), extra=extra if isinstance(extra, dict) else {})


def _file(row: Any) -> ProjectFile:
    return ProjectFile(id=row["id"], project_id=row["project_id"], name=row["name"],
                       content=row["content"], path=row["path"], size=int(row["size"]),
                       created_at=float(row["created_at"]))
