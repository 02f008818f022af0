"""Entry point: ``assista`` opens the window; ``assista ask`` / ``assista export`` run headless."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from desktop.cli.commands import run

    try:
        try:
            return run(sys.argv[1:] if argv is None else argv)
        finally:  # (--help exits): a reader that went away shows here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:  # ``assista ... | head``: every command ends quietly
        from desktop.cli.failure import output_closed

        return output_closed()


def gui_main() -> int:
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
