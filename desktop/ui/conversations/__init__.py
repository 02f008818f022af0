"""Saved chats: the chat list, search, import/export, assistants and per-chat prompts."""
