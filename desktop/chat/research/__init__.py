"""Research: the model plans, searches the web and the chat's knowledge bases, reads
pages in rounds within limits, and answers with a report citing what it read.

:mod:`.progress` (limits, progress events), :mod:`.gather` (searching, reading),
:mod:`.prompts` (what the model is asked, the report's sources), :mod:`.run` (the
run), :mod:`.start` (a research turn on the chat service). Qt-free.
"""
