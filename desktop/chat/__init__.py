"""The chat service: assembles and runs the turns of every chat (Qt-free).

:class:`desktop.chat.service.ChatService` is built once by the entry point and used
by the window (through a thin Qt adapter) and by ``assista ask``. Modules:

- ``profile``: what a chat answers as (provider, model, assistant, prompt, tools);
- ``chat_settings``: changing those per chat;
- ``chat_tools``: which tools a chat gets, MCP servers, the unknown-tool check;
- ``turn_plan``: the one place the next request of a chat is put together;
- ``turn_runner``: the one place a turn is built, run and ended (chats and compare);
- ``running``: a turn in progress, its event log and observers;
- ``approvals``: tool calls of any chat waiting for the user;
- ``limiter``: how many requests one provider streams at once;
- ``events``: what observers are told besides the agent loop's events.
"""
