"""``assista mcp install FILE.mcpb`` and ``assista mcp uninstall NAME``.

``install`` unpacks and checks the bundle, then takes its configuration from
``--set KEY=VALUE`` (repeatable; a field that takes several values gets one
``--set`` per value); a required answer still missing is asked on the terminal
(sensitive ones without echo) when there is one, else the install is refused naming
it. The server is then in Settings → MCP servers.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, Any

# (the parser is built at every start, the window's too: what runs a command is
# imported when it runs)
if TYPE_CHECKING:
    from desktop.tools.mcp.bundles import Manifest


def add_bundle_parsers(mcp_sub: Any, add_common: Any) -> None:
    install = mcp_sub.add_parser("install", help="install an MCP bundle (.mcpb file)")
    add_common(install)
    install.add_argument("file", metavar="FILE.mcpb")
    install.add_argument("--set", dest="values", metavar="KEY=VALUE", action="append",
                         default=[], help="answer one of the bundle's configuration fields")
    uninstall = mcp_sub.add_parser("uninstall", help="remove an MCP server (and, for one "
                                   "installed from a bundle, its files)")
    add_common(uninstall)
    uninstall.add_argument("name", metavar="NAME")


def _values(manifest: Manifest, pairs: list[str]) -> dict[str, Any]:
    from desktop.tools.mcp.bundles import BundleError

    multiple = {f.key for f in manifest.fields if f.multiple}
    known = {f.key for f in manifest.fields}
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in known:
            raise BundleError(f"--set {pair!r}: the bundle has no field {key!r} (it has: "
                              f"{', '.join(sorted(known)) or 'none'})")
        if key in multiple:
            values.setdefault(key, []).append(value)
        else:
            values[key] = value
    for f in manifest.fields:
        if f.required and f.default in (None, "") and not values.get(f.key) \
                and sys.stdin.isatty():
            prompt = f"{f.title}{' (' + f.description + ')' if f.description else ''}: "
            values[f.key] = getpass.getpass(prompt) if f.sensitive else input(prompt)
    return values


def bundle_command(args: argparse.Namespace) -> int:
    from desktop.cli.context import open_cli_context
    from desktop.cli.failure import fail
    from desktop.core.errors import AssistaError

    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        return fail(str(exc))
    from desktop.tools.mcp.bundle_install import BundleService

    service = BundleService(ctx.paths.root, ctx.settings, ctx.secrets)
    try:
        if args.mcp_command == "uninstall":
            files = service.uninstall(args.name)
            print(f"uninstalled MCP server {args.name}" + (" and its files" if files else ""))
            return 0
        bundle = service.open(args.file)
        try:
            name = service.install(bundle, _values(bundle.manifest, args.values))
        finally:
            if bundle.folder.name.startswith(".incoming-"):
                bundle.discard()
        manifest = bundle.manifest
        print(f"installed MCP server {name} ({manifest.display_name} {manifest.version})")
        return 0
    except (EOFError, KeyboardInterrupt):
        return fail("interrupted", 130)
    except AssistaError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot write the extensions folder: {exc.strerror or exc}")
    finally:
        ctx.close()
