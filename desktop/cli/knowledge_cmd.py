"""``assista knowledge add|index|list|search``: knowledge bases from the command line.

``add NAME PATH...`` creates the base (or adds paths to it) and indexes it; ``index
NAME`` re-indexes what changed; ``list`` prints NAME<TAB>files<TAB>chunks<TAB>paths;
``search NAME "query"`` prints the ranked hits, best first, one per line:
PATH<TAB>LOCATION<TAB>SCORE<TAB>first words of the passage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.app import AppContext
from desktop.cli.context import run_in_context
from desktop.cli.failure import fail
from desktop.core.errors import ConfigError
from desktop.core.terminal_text import own_stream, visible
from desktop.knowledge.embeddings import EmbeddingError, check_embedding, embedding_kinds
from desktop.knowledge.store import EmbeddingConfig, KnowledgeBase, KnowledgeStore

SNIPPET_CHARS = 100


def _embedding(args: argparse.Namespace) -> EmbeddingConfig | None:
    if not getattr(args, "embedding_model", None):
        return None
    kinds = embedding_kinds()  # (the adapters that embed say so)
    if args.embedding_kind not in kinds:
        raise ConfigError(f"--embedding-kind: {args.embedding_kind!r} is not one of "
                          f"{', '.join(kinds)}")
    return EmbeddingConfig(kind=args.embedding_kind, base_url=args.embedding_url,
                           model=args.embedding_model, api_key_env=args.embedding_key_env)


def index_base(store: KnowledgeStore, base: KnowledgeBase, quiet: bool = False) -> None:
    """Index ``base`` incrementally, with a progress line on a terminal."""
    from desktop.knowledge.indexer import Indexer
    from desktop.knowledge.search import embed_missing

    show = not quiet and sys.stderr.isatty()

    def progress(done: int, total: int, _path: str) -> None:
        if show and (done == total or done % 100 == 0):
            line = own_stream(sys.stderr)  # the line redraws itself (a carriage return)
            line.write(f"\rindexing {visible(base.name, lines=False)}: {done}/{total} files")
            line.flush()

    report = Indexer(store, base, progress).run()
    if show:
        sys.stderr.write("\n")
    embedded = embed_missing(store, base)
    if not quiet:
        sys.stderr.write(
            f"{base.name}: {report.added} added, {report.updated} changed, {report.removed} "
            f"removed, {report.unchanged} unchanged, {len(report.failed)} not readable"
            + (f", {embedded} chunks embedded" if embedded else "")
            + f" ({report.seconds:.1f} s)\n")
        for path, reason in list(report.failed.items())[:20]:
            sys.stderr.write(f"  skipped {path}: {reason}\n")


def _snippet(text: str, query: str) -> str:
    """The passage around the first query word it holds, on one line."""
    flat = " ".join(text.split())
    lower = flat.lower()
    places = [lower.find(w) for w in query.lower().split() if len(w) > 2 and w in lower]
    start = max(0, min(places) - 20) if places else 0
    return ("…" if start else "") + flat[start:start + SNIPPET_CHARS]


def _run(ctx: AppContext, args: argparse.Namespace) -> int:
    store = KnowledgeStore(ctx.db, proxy=ctx.proxy)
    action = args.knowledge_command
    if action == "add":
        embedding = _embedding(args)
        if embedding is not None:  # before anything is made: a wrong URL leaves nothing
            check_embedding(embedding, store.api_key(embedding), proxy=store.proxy)
        base = store.add(args.name, [Path(p) for p in args.paths], embedding)
        try:
            index_base(store, base)
        except EmbeddingError as exc:
            raise EmbeddingError(
                f"{exc}; the files are indexed for word search, and 'assista knowledge "
                f"index {base.name}' embeds the rest") from exc
    elif action == "index":
        index_base(store, store.get(args.name))
    elif action == "list":
        for base in store.list():
            print(f"{base.name}\t{base.files}\t{base.chunks}\t{' '.join(base.paths)}")
    elif action == "search":
        from desktop.knowledge.search import search_base

        hits = search_base(store, store.get(args.name), args.query, args.top_k)
        for hit in hits:
            snippet = _snippet(hit.text, args.query)
            print(f"{hit.path}\t{hit.location}\t{hit.score:.3f}\t{snippet}")
        if not hits:
            return fail("nothing found")
    return 0


def knowledge_command(args: argparse.Namespace) -> int:
    return run_in_context(args, lambda ctx: _run(ctx, args),
                          reads=args.knowledge_command in ("list", "search"))
