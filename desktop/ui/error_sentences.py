"""The window's sentences for the errors of the data folder, the database, import and
export, chats and providers, by code (desktop.core.error_codes; the raise sites give
the params named here). :mod:`desktop.ui.error_text` words every error through them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["SENTENCES"]

SENTENCES: dict[str, Any] = {
    # -- the data folder and the database ------------------------------------------------
    "data_folder_missing": QT_TRANSLATE_NOOP("Errors", "The data folder {folder} does not exist."),
    "data_folder_empty": QT_TRANSLATE_NOOP(
        "Errors", "The data folder {folder} holds no Assista database."),
    "data_folder_read_only": QT_TRANSLATE_NOOP(
        "Errors", "The data folder {folder} cannot be written."),
    "data_folder_lock_failed": QT_TRANSLATE_NOOP("Errors", "{file} cannot be used."),
    "data_location_not_folder": QT_TRANSLATE_NOOP(
        "Errors", "The data location {folder} exists but is not a folder."),
    "data_dir_flag": QT_TRANSLATE_NOOP("Errors", "{flag} needs a folder, for example {example}."),
    "database_closed": QT_TRANSLATE_NOOP("Errors", "The database is closed."),
    "database_newer": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} was written by a newer version of Assista (schema "
        "{schema}; this version knows up to {known}). Update Assista, or start it with another "
        "data folder. The database was not modified."),
    "database_needs_upgrade": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} needs an upgrade (schema {schema} to {known}) and cannot "
        "be opened read-only."),
    "database_damaged": QT_TRANSLATE_NOOP("Errors", "The database {path} is damaged."),
    "database_damaged_restart": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} is damaged. Restart Assista to recover it."),
    "database_unusable": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} cannot be used. It may be damaged or not an Assista "
        "database."),
    "database_unmovable": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} is damaged and could not be moved aside; move it away "
        "yourself and start Assista again."),
    "database_open_failed": QT_TRANSLATE_NOOP("Errors", "Cannot open the database {path}."),
    "database_read_only": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} is open read-only (its folder cannot be written); this "
        "change was not saved."),
    "database_unwritable": QT_TRANSLATE_NOOP("Errors", "The database {path} cannot be written."),
    "database_disk_full": QT_TRANSLATE_NOOP(
        "Errors", "The disk holding the database {path} is full."),
    "database_busy": QT_TRANSLATE_NOOP("Errors", "The database is busy or unavailable."),
    "database_failed": QT_TRANSLATE_NOOP(
        "Errors", "The database {path} could not be read or written."),
    "backup_failed": QT_TRANSLATE_NOOP(
        "Errors", "Cannot back up the database {path} before upgrading it. The database was not "
        "modified; free some disk space and try again."),
    "upgrade_failed": QT_TRANSLATE_NOOP(
        "Errors", "Upgrading the database {path} (migration {migration}) failed. The database "
        "was left at version {version}."),
    "upgrade_restored": QT_TRANSLATE_NOOP(
        "Errors", "Upgrading the database {path} (migration {migration}) failed. The database "
        "was restored as it was (version {version}); a copy is kept in {backup}."),
    "upgrade_restore_failed": QT_TRANSLATE_NOOP(
        "Errors", "Upgrading the database {path} (migration {migration}) failed, and restoring "
        "the backup also failed; your data is safe in {backup}."),
    "upgrade_foreign_keys": QT_TRANSLATE_NOOP(
        "Errors", "After the upgrade, some records of the database point to records that do "
        "not exist."),
    "migration_step_broken": QT_TRANSLATE_NOOP("Errors", "A step of the database upgrade failed."),
    "inspector_db_failed": QT_TRANSLATE_NOOP(
        "Errors", "Cannot open the request inspector's database {path}."),
    "key_file_unreadable": QT_TRANSLATE_NOOP(
        "Errors", "The key file {file} cannot be read. Fix or delete it and enter the API keys "
        "again."),
    "key_file_format": QT_TRANSLATE_NOOP(
        "Errors", "The key file {file} has an unexpected format."),
    "key_file_unwritable": QT_TRANSLATE_NOOP("Errors", "Cannot write the key file {file}."),
    "setting_not_json": QT_TRANSLATE_NOOP("Errors", "The setting {key} cannot be stored."),
    "search_failed": QT_TRANSLATE_NOOP("Errors", "The search failed."),
    "answer_not_saved": QT_TRANSLATE_NOOP("Errors", "The answer could not be saved."),
    "messages_not_saved": QT_TRANSLATE_NOOP("Errors", "{count} messages could not be saved."),
    # -- chats, messages, assistants, projects --------------------------------------------
    "message_empty": QT_TRANSLATE_NOOP("Errors", "The message is empty."),
    "message_exists": QT_TRANSLATE_NOOP("Errors", "That message already exists."),
    "message_not_in_chat": QT_TRANSLATE_NOOP("Errors", "That message is not in this chat."),
    "message_other_chat": QT_TRANSLATE_NOOP(
        "Errors", "The message could not be saved: it belongs to another chat."),
    "message_parent_missing": QT_TRANSLATE_NOOP(
        "Errors", "The message could not be saved: the message it follows is not in this chat."),
    "message_not_shown": QT_TRANSLATE_NOOP(
        "Errors", "That message is not on the chat's shown branch."),
    "no_question_before": QT_TRANSLATE_NOOP(
        "Errors", "There is no question before this message to ask again."),
    "chat_exists": QT_TRANSLATE_NOOP("Errors", "A chat with id {chat} already exists."),
    "chat_lock_failed": QT_TRANSLATE_NOOP("Errors", "The chat could not be locked for its answer."),
    "nothing_to_undo": QT_TRANSLATE_NOOP(
        "Errors", "Nothing to undo: no file written by the assistant is waiting to be undone."),
    "replay_no_request": QT_TRANSLATE_NOOP(
        "Errors", "This record has no request to replay (recorded by an older version)."),
    "compare_count": QT_TRANSLATE_NOOP(
        "Errors", "Compare {minimum} to {maximum} models at once ({given} given)."),
    "assistant_name_needed": QT_TRANSLATE_NOOP("Errors", "An assistant needs a name."),
    "temperature_range": QT_TRANSLATE_NOOP("Errors", "The temperature must be between 0 and 2."),
    "assistant_not_saved": QT_TRANSLATE_NOOP("Errors", "The assistant could not be saved."),
    "assistant_missing": QT_TRANSLATE_NOOP("Errors", "That assistant no longer exists."),
    "project_not_saved": QT_TRANSLATE_NOOP("Errors", "The project could not be saved."),
    "project_missing": QT_TRANSLATE_NOOP("Errors", "That project no longer exists."),
    "memory_ambiguous": QT_TRANSLATE_NOOP(
        "Errors", "Several memories have ids starting with {id}; give more of the id."),
    "speech_failed": QT_TRANSLATE_NOOP("Errors", "The system speech failed."),
    # -- import and export ----------------------------------------------------------------
    "not_an_export": QT_TRANSLATE_NOOP("Errors", "This is not an Assista export file."),
    "export_version": QT_TRANSLATE_NOOP(
        "Errors", "This export has format version {version}, which this version of Assista "
        "cannot read; update Assista to import it."),
    "export_chat_malformed": QT_TRANSLATE_NOOP("Errors", "A chat in the export is not readable."),
    "export_chat_malformed+chat": QT_TRANSLATE_NOOP(
        "Errors", "The chat {chat} in the export is not readable."),
    "export_messages_elsewhere": QT_TRANSLATE_NOOP(
        "Errors", "Some messages of the chat {chat} already exist in another chat."),
    "export_memories_malformed": QT_TRANSLATE_NOOP(
        "Errors", "The memories in the export are not readable."),
    "export_projects_malformed": QT_TRANSLATE_NOOP(
        "Errors", "A project in the export is not readable."),
    "import_too_large": QT_TRANSLATE_NOOP(
        "Errors", "{file} holds more than {limit} MB of chats, more than Assista imports at once;"
        " split the export or import the chats in parts."),
    "import_not_file": QT_TRANSLATE_NOOP(
        "Errors", "{file} is not a file (a folder, a device or a pipe); import reads an export "
        "file."),
    "import_bad_zip": QT_TRANSLATE_NOOP("Errors", "{file} is a damaged zip file."),
    "import_not_json": QT_TRANSLATE_NOOP("Errors", "{file} is not a JSON file."),
    "import_no_conversations": QT_TRANSLATE_NOOP(
        "Errors", "{file} has no conversations.json inside."),
    "import_unknown_format": QT_TRANSLATE_NOOP(
        "Errors", "This file is neither an Assista export nor a ChatGPT conversations.json."),
    "chatgpt_wrong_types": QT_TRANSLATE_NOOP(
        "Errors", "The ChatGPT export could not be read: a conversation in it has fields of the "
        "wrong type; nothing was imported."),
    "chatgpt_unreadable": QT_TRANSLATE_NOOP("Errors", "The ChatGPT export could not be read."),
    # -- providers and settings -----------------------------------------------------------
    "no_provider": QT_TRANSLATE_NOOP("Errors", "Add a provider to start chatting."),
    "api_key_needed": QT_TRANSLATE_NOOP(
        "Errors", "{provider} needs an API key: add one in Providers."),
    "unsupported_kind": QT_TRANSLATE_NOOP(
        "Errors", "{provider} uses an unsupported kind of provider ({kind})."),
    "invalid_option": QT_TRANSLATE_NOOP("Errors", "{provider}: the option {option} is not valid."),
    "unknown_preset": QT_TRANSLATE_NOOP(
        "Errors", "Unknown provider preset {preset} (known: {known})."),
    "preset_needs_url": QT_TRANSLATE_NOOP(
        "Errors", "{provider} needs a base URL (for example http://localhost:8080/v1)."),
    "header_is_credential": QT_TRANSLATE_NOOP(
        "Errors", "The header {name} looks like a credential. Enter the API key in the "
        "provider's key field instead; it is kept in the system keyring, not in the settings."),
    "unknown_tools": QT_TRANSLATE_NOOP("Errors", "Unknown tools: {tools}. Available: {available}."),
    "no_native_search": QT_TRANSLATE_NOOP(
        "Errors", "{provider} has no web search of its own: choose a search service (SearXNG, "
        "Brave or Tavily) in Settings, or turn off Search the web."),
    "search_needs_url": QT_TRANSLATE_NOOP(
        "Errors", "Web search via {service} needs the instance's address (Settings)."),
    "search_needs_key": QT_TRANSLATE_NOOP(
        "Errors", "Web search via {service} needs an API key (Settings)."),
    "search_needs_tools": QT_TRANSLATE_NOOP(
        "Errors", "This model cannot call tools, so it cannot search the web here; pick a model "
        "with tools or turn off Search the web."),
}
