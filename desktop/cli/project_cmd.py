"""``assista project create|list|show|delete``: projects from the command line.

``list`` prints NAME<TAB>chats<TAB>files<TAB>ID, one project a line; ``show NAME``
prints its settings, files and chats; ``delete NAME`` deletes the project and says
what happens to everything that was in it (its chats are kept, in no project).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.app import AppContext
from desktop.cli.context import run_in_context
from desktop.core.errors import ConfigError
from desktop.core.records import Project
from desktop.projects.service import ProjectService


def _instructions(args: argparse.Namespace) -> str:
    if args.instructions_file:
        try:
            return Path(args.instructions_file).expanduser().read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {args.instructions_file}: "
                              f"{getattr(exc, 'strerror', None) or exc}") from exc
    return args.instructions or ""


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{max(1, size // 1024)} KB"


def _show(ctx: AppContext, service: ProjectService, project: Project) -> None:
    print(f"name\t{project.name}")
    print(f"id\t{project.id}")
    print(f"model\t{project.model or '(the provider default)'}")
    print(f"workspace\t{project.workspace or '(none)'}")
    print(f"knowledge\t{', '.join(project.knowledge) or '(none)'}")
    tools = "(the app's)" if project.tools is None else ", ".join(project.tools) or "(none)"
    print(f"tools\t{tools}")
    print("instructions")
    for line in (project.instructions or "(none)").splitlines():
        print(f"  {line}")
    files = service.files(project)
    print(f"files\t{len(files)}")
    for file in files:
        where = "in context" if file.in_context else f"searched in {project.files_base}"
        print(f"  {file.name}\t{_size(file.size)}\t{where}")
    chats = service.chat_ids(project)
    print(f"chats\t{len(chats)}")
    for chat_id in chats:
        info = ctx.sessions.get_session(chat_id)
        if info is not None:
            print(f"  {info.id}\t{info.title}")


def _run(ctx: AppContext, args: argparse.Namespace) -> int:
    service = ctx.projects
    action = args.project_command
    if action == "create":
        project = service.create(
            args.name, instructions=_instructions(args),
            files=[Path(p) for p in args.file], knowledge=args.knowledge,
            workspace=args.workspace, model=args.model)
        files = service.files(project)
        searched = sum(not f.in_context for f in files)
        print(f"created project {project.name} ({project.id})"
              + (f" with {len(files)} files" if files else "")
              + (f", {searched} of them searched in {project.files_base}" if searched else ""))
    elif action == "list":
        counts = service.store.chat_counts()
        for project in service.all():
            files = service.files(project)
            print(f"{project.name}\t{counts.get(project.id, 0)}\t{len(files)}\t{project.id}")
    elif action == "show":
        _show(ctx, service, service.resolve(args.name))
    elif action == "delete":
        project = service.resolve(args.name)
        files = service.files(project)
        chats = service.delete(project)
        kept = (f"its {len(chats)} chat is kept" if len(chats) == 1
                else f"its {len(chats)} chats are kept")
        sys.stdout.write(
            f"deleted project {project.name}: {kept}, now in no project; the text of "
            f"its {len(files)} file{'' if len(files) == 1 else 's'} was deleted with it"
            + (f"; the knowledge base {project.files_base} is kept (assista knowledge list)"
               if project.files_base else "") + "\n")
    return 0


def project_command(args: argparse.Namespace) -> int:
    return run_in_context(args, lambda ctx: _run(ctx, args),
                          reads=args.project_command in ("list", "show"))
