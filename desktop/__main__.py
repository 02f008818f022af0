"""Entry point: ``assista`` opens the window; ``assista ask`` / ``assista export`` run headless."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from desktop.tools.process_guard import guard_process

    guard_process()  # the commands the model runs must not read the app's keys
    from desktop.cli.commands import run

    return run(sys.argv[1:] if argv is None else argv)


def gui_main() -> int:
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
