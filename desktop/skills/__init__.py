"""Agent Skills (Qt-free): folders with a ``SKILL.md`` (YAML front matter ``name``,
``description``, optional ``allowed-tools``; resources and scripts beside it) in the
open Agent Skills format. :mod:`desktop.skills.format` reads and checks one,
:mod:`desktop.skills.catalog` finds them (the app's skills folder, a workspace's
``.agents/skills`` and ``.claude/skills``), :mod:`desktop.skills.install` adds and
removes them, :mod:`desktop.skills.tool` is the model's ``load_skill`` tool."""
