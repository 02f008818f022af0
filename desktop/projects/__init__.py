"""Projects (Qt-free): chats grouped with shared instructions, files, knowledge bases,
a workspace folder and a default model (:class:`ProjectService`); what a project adds
to its chats' system prompt is :func:`desktop.projects.context.project_context`."""
