"""Entry point: ``assista`` opens the window; ``assista ask`` / ``assista export`` run headless."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--assista-run-command"]:  # a frozen build runs run_command's supervisor
        from desktop.tools.command_supervisor import main as supervise

        return supervise(args[1:])
    from desktop.tools.process_guard import guard_process

    guard_process()  # the commands the model runs must not read the app's keys
    from desktop.core.model_plugins import keep_plugins_out

    keep_plugins_out()  # (the user's chats are validated by no one else's code)
    from desktop.cli.commands import run

    try:
        try:
            return run(args)
        finally:  # (--help exits): a reader that went away shows here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:  # ``assista ... | head``: every command ends quietly
        from desktop.cli.failure import output_closed

        return output_closed()


def gui_main() -> int:
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
