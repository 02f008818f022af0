"""``assista skills add PATH | list | remove NAME``: the app's Agent Skills.

``list`` prints one line per skill, ``NAME<TAB>on|off|broken<TAB>ORIGIN<TAB>DESCRIPTION
or PROBLEM`` (``--workspace DIR`` adds that folder's ``.agents/skills`` and
``.claude/skills``; ``--json`` one JSON document).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

# (the parser is built at every start, the window's too: what runs a command is
# imported when it runs)


def add_skills_parser(sub: Any, add_common: Any) -> None:
    skills = sub.add_parser("skills", help="Agent Skills: add, list, remove")
    skills_sub = skills.add_subparsers(dest="skills_command", required=True)
    add = skills_sub.add_parser("add", help="add a skill from a folder holding SKILL.md, "
                                "or a .zip of one")
    add_common(add)
    add.add_argument("path", metavar="PATH")
    listing = skills_sub.add_parser("list", help="every skill, one per line: "
                                    "NAME<TAB>on|off|broken<TAB>ORIGIN<TAB>DESCRIPTION")
    add_common(listing)
    listing.add_argument("--workspace", metavar="DIR",
                         help="also list the skills of this workspace folder")
    listing.add_argument("--json", action="store_true", help="print one JSON document")
    remove = skills_sub.add_parser("remove", help="remove an added skill (its whole folder)")
    add_common(remove)
    remove.add_argument("name", metavar="NAME")


def skills_command(args: argparse.Namespace) -> int:
    from desktop.cli.context import open_cli_context
    from desktop.cli.failure import fail
    from desktop.core.errors import AssistaError

    try:
        reads = args.skills_command == "list"
        ctx = open_cli_context(args, writes=not reads, must_exist=reads)
    except AssistaError as exc:
        return fail(str(exc))
    from desktop.skills.service import SkillService

    service = SkillService(ctx.paths.root, ctx.settings)
    try:
        if args.skills_command == "add":
            name = service.add(args.path)
            print(f"added skill {name}")
        elif args.skills_command == "remove":
            service.remove(args.name)
            print(f"removed skill {args.name}")
        else:
            _list(service, args)
    except AssistaError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot change the skills folder: {exc.strerror or exc}")
    finally:
        ctx.close()
    return 0


def _list(service: Any, args: argparse.Namespace) -> None:
    from desktop.core.terminal_text import visible

    skills = service.list(args.workspace)
    if args.json:
        document = [{"name": s.name, "description": s.description, "path": str(s.path),
                     "origin": s.origin, "enabled": service.enabled(s.name),
                     "problem": s.problem, "allowed_tools": list(s.allowed_tools)}
                    for s in skills]
        sys.stdout.write(json.dumps({"skills": document}, ensure_ascii=False, indent=2) + "\n")
        return
    for s in skills:
        state = "broken" if not s.valid else "on" if service.enabled(s.name) else "off"
        text = s.description if s.valid else s.problem or ""
        line = f"{s.name}\t{state}\t{s.origin}\t{' '.join(text.split())}"
        sys.stdout.write(visible(line, lines=False) + "\n")
