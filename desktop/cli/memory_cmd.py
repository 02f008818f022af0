"""``assista memory list|add|forget``: the memories the assistant keeps about the user.

``list [--project NAME]`` prints ID<TAB>SCOPE<TAB>TEXT, newest first (every memory;
with ``--project``, that project's own); ``add TEXT [--project NAME]`` saves one
(global, or the project's) and prints its id; ``forget ID`` deletes one (the id, or
the start of it that only one memory has).
"""

from __future__ import annotations

import argparse

from desktop.cli.context import run_in_context
from desktop.core.terminal_text import visible
from desktop.storage.database import Database
from desktop.storage.memories import MemoryStore, project_id_by_name


def _project_names(db: Database) -> dict[str, str]:
    if db.query_one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projects'"):
        return {str(r[0]): str(r[1]) for r in db.query("SELECT id, name FROM projects")}
    return {}


def _run(store: MemoryStore, args: argparse.Namespace) -> int:
    action = args.memory_command
    if action == "list":
        if args.project:
            memories = store.in_scope(project_id_by_name(store.db, args.project))
        else:
            memories = store.all()
        names = _project_names(store.db)
        for memory in memories:
            scope = "global" if memory.project_id is None else \
                f"project {names.get(memory.project_id, memory.project_id)}"
            print(f"{memory.id}\t{visible(scope, lines=False)}\t"
                  f"{visible(memory.text, lines=False)}")
    elif action == "add":
        project = project_id_by_name(store.db, args.project) if args.project else None
        print(store.add(args.text, project).id)
    elif action == "forget":
        memory = store.find(args.id)
        store.forget(memory.id)
        print(f"forgot: {visible(memory.text, lines=False)}")
    return 0


def memory_command(args: argparse.Namespace) -> int:
    return run_in_context(args, lambda ctx: _run(MemoryStore(ctx.db), args),
                          reads=args.memory_command == "list")  # (a list creates nothing)
