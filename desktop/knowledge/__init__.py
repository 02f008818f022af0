"""Knowledge bases (Qt-free): named collections of folders and files, indexed into
chunks with their file and page/line range in the app's SQLite database; full-text
search (FTS5 BM25) always, vector search and hybrid ranking when an embedding model
is chosen; exposed to the model as the ``search_knowledge`` tool."""
