"""ProjectService: projects for the window and the command line (Qt-free).

A project groups chats that share instructions, files, knowledge bases, a workspace
folder and a default model. Files are added once: a small text file is kept whole
and put in the context of every chat in the project; a larger one (or one that would
push the project's files past their share of the context) goes to a knowledge base
made for the project, which its chats search with the ``search_knowledge`` tool.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop import knowledge as knowledge_bases
from desktop.core.attachments import AttachmentError, document_text
from desktop.core.errors import ConfigError, StorageError
from desktop.core.records import Project, ProjectFile
from desktop.storage.database import Database
from desktop.storage.projects import ProjectStore

if TYPE_CHECKING:
    from desktop.knowledge.store import KnowledgeStore


class ProjectService:
    """Everything a project does; the stores are its only state."""

    #: A file with more characters than this goes to the project's files base.
    CONTEXT_FILE_CHARS = 20_000
    #: The most characters of files a project puts in the context of each chat.
    CONTEXT_TOTAL_CHARS = 60_000

    def __init__(self, store: ProjectStore) -> None:
        self.store = store

    @classmethod
    def on(cls, db: Database) -> ProjectService:
        return cls(ProjectStore(db))

    # -- reading -------------------------------------------------------------------

    def all(self) -> list[Project]:
        return self.store.list_projects()

    def get(self, project_id: str | None) -> Project | None:
        return self.store.get(project_id) if project_id else None

    def resolve(self, name: str) -> Project:
        """The project called ``name`` (or with this id); ConfigError naming those there are."""
        project = self.store.find(name)
        if project is None:
            names = ", ".join(p.name for p in self.all()) or "none yet"
            raise ConfigError(f"no project named {name!r} (there are: {names}); create it "
                              "with: assista project create NAME", code="no_project",
                              params={"name": name})
        return project

    def files(self, project: Project) -> list[ProjectFile]:
        return self.store.files(project.id)

    def chat_ids(self, project: Project) -> list[str]:
        return self.store.chat_ids(project.id)

    def chats(self, project: Project) -> list[tuple[str, str]]:
        """(id, title) of its chats, most recent first."""
        return self.store.chat_rows(project.id)

    def chat_counts(self) -> dict[str, int]:
        """How many chats each project holds, by id."""
        return self.store.chat_counts()

    def knowledge_bases(self) -> list[str]:
        """The names of every knowledge base there is (to attach to a project)."""
        return [base.name for base in knowledge_bases.KnowledgeStore(self.store.db).list()]

    def knowledge(self, project: Project) -> list[str]:
        """The knowledge bases its chats search: those attached, and its files base when
        files are searched there; only bases that exist here (a synced project may name
        bases of another machine)."""
        names = list(project.knowledge)
        if project.files_base and any(not f.in_context for f in self.store.files(project.id)):
            names.append(project.files_base)
        if not names:
            return []
        bases = knowledge_bases.KnowledgeStore(self.store.db).list()
        here = {base.name.casefold() for base in bases}
        return [n for n in dict.fromkeys(names) if n.casefold() in here]

    # -- changing ------------------------------------------------------------------

    def create(self, name: str, *, instructions: str = "", files: Sequence[Path] = (),
               knowledge: Sequence[str] = (), workspace: str | None = None,
               model: str | None = None, provider_id: str | None = None,
               tools: Sequence[str] | None = None) -> Project:
        """A new project with its files added; nothing is made when an input is wrong."""
        if self.store.find(name) is not None:
            raise ConfigError(f"there is already a project named {name.strip()!r}",
                              code="project_exists", params={"name": name.strip()})
        self._check_knowledge(knowledge)
        readable = [self._checked_file(Path(p)) for p in files]
        project = self.store.save(Project(
            name=name, instructions=instructions.strip(), knowledge=tuple(knowledge),
            workspace=self._checked_workspace(workspace), model=model or None,
            provider_id=provider_id, tools=tuple(tools) if tools is not None else None))
        for path in readable:
            self.add_file(project, path)
        return self.store.get(project.id) or project

    def save(self, project: Project) -> Project:
        """Store an edited project (``dataclasses.replace`` of one read here); its
        knowledge bases must exist and its workspace be a folder."""
        self._check_knowledge(project.knowledge)
        workspace = self._checked_workspace(project.workspace)
        return self.store.save(dataclasses.replace(project, workspace=workspace))

    def delete(self, project: Project) -> list[str]:
        """Delete the project; its chats move out of it (kept). Returns their ids."""
        return self.store.delete(project.id)

    def move_chat(self, session_id: str, project: Project | None) -> None:
        self.store.move_chat(session_id, project.id if project is not None else None)

    def add_file(self, project: Project, path: Path) -> ProjectFile:
        """Add a file: its text in the context when small enough, else to the files base."""
        path = self._checked_file(path)
        try:
            text = document_text(path)
        except AttachmentError as exc:
            raise ConfigError(str(exc), code="project_file_unreadable",
                              params={"file": path.name, "detail": str(exc)}) from exc
        size = path.stat().st_size
        in_context = sum(len(f.content or "") for f in self.store.files(project.id)
                         if f.name != path.name)
        if len(text) <= self.CONTEXT_FILE_CHARS and \
                in_context + len(text) <= self.CONTEXT_TOTAL_CHARS:
            return self.store.add_file(ProjectFile(project_id=project.id, name=path.name,
                                                   content=text, path=str(path), size=size))
        base = self._index_in_files_base(project, path)
        self.store.save(dataclasses.replace(self.store.get(project.id) or project,
                                            files_base=base))
        return self.store.add_file(ProjectFile(project_id=project.id, name=path.name,
                                               content=None, path=str(path), size=size))

    def remove_file(self, project: Project, file: ProjectFile) -> None:
        self.store.remove_file(file.id)
        if file.in_context or not project.files_base or not file.path:
            return
        store = knowledge_bases.KnowledgeStore(self.store.db)
        if store.find(project.files_base) is not None:  # its passages leave the index now
            knowledge_bases.Indexer(store, store.remove_path(project.files_base, file.path)).run()

    # -- helpers -------------------------------------------------------------------

    def _index_in_files_base(self, project: Project, path: Path) -> str:
        store = knowledge_bases.KnowledgeStore(self.store.db)
        name = project.files_base
        if not name or store.find(name) is None:
            name = self._free_base_name(store, f"{project.name} (project files)")
        base = store.add(name, [path])
        knowledge_bases.Indexer(store, base).run()
        return base.name

    @staticmethod
    def _free_base_name(store: KnowledgeStore, wanted: str) -> str:
        name, n = wanted, 1
        while store.find(name) is not None:
            n += 1
            name = f"{wanted} {n}"
        return name

    def _check_knowledge(self, names: Iterable[str]) -> None:
        store = knowledge_bases.KnowledgeStore(self.store.db)
        for name in names:
            store.get(name)  # ConfigError naming the bases there are

    @staticmethod
    def _checked_workspace(workspace: str | None) -> str | None:
        if not workspace:
            return None
        folder = Path(workspace).expanduser()
        if not folder.is_dir():
            raise ConfigError(f"the workspace {workspace} is not a folder",
                              code="project_workspace_missing", params={"folder": workspace})
        return str(folder.resolve())

    @staticmethod
    def _checked_file(path: Path) -> Path:
        path = Path(path).expanduser()
        if not path.is_file():
            raise ConfigError(f"no such file: {path}", code="project_file_missing",
                              params={"file": str(path)})
        return path.resolve()


__all__ = ["Project", "ProjectFile", "ProjectService", "ProjectStore", "StorageError"]
