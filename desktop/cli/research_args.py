"""``assista ask --research`` and its limits as arguments: light (argparse only), since
the parser is built before the window's first frame."""

from __future__ import annotations

import argparse


def add_research_arguments(ask: argparse.ArgumentParser) -> None:
    ask.add_argument("--research", action="store_true",
                     help="research the question: plan, search the web and the knowledge "
                          "bases in rounds, read pages, and answer with a report citing "
                          "its sources")
    ask.add_argument("--max-rounds", type=int, metavar="N",
                     help="with --research: search rounds at most (default: Settings, 3)")
    ask.add_argument("--max-minutes", type=float, metavar="M",
                     help="with --research: minutes of searching at most (default: 5)")
    ask.add_argument("--max-cost", type=float, metavar="USD",
                     help="with --research: stop at this cost in US dollars (0: no "
                          "ceiling; default: Settings, 0.50)")
