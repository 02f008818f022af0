"""The window's sentences for the errors of sync, documents and attachments, knowledge
bases and MCP settings, by code (desktop.core.error_codes; the raise sites give the
params named here). :mod:`desktop.ui.error_text` words every error through them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["SENTENCES"]

SENTENCES: dict[str, Any] = {
    # -- sync -----------------------------------------------------------------------------
    "sync_unknown_target": QT_TRANSLATE_NOOP("Errors", "Unknown sync target {url}: use {forms}."),
    "sync_passphrase_unset": QT_TRANSLATE_NOOP(
        "Errors", "Set the sync passphrase in Settings → Sync."),
    "sync_passphrase_empty": QT_TRANSLATE_NOOP(
        "Errors", "The sync passphrase is empty; set one to encrypt your chats."),
    "sync_wrong_passphrase": QT_TRANSLATE_NOOP(
        "Errors", "The sync passphrase is wrong: it does not open the chats already on the "
        "target. Nothing was changed."),
    "sync_file_damaged": QT_TRANSLATE_NOOP("Errors", "{file} on the sync target is damaged."),
    "sync_file_altered": QT_TRANSLATE_NOOP(
        "Errors", "{file} on the sync target is damaged or was altered (it fails "
        "authentication)."),
    "sync_target_newer": QT_TRANSLATE_NOOP(
        "Errors", "The sync target was set up by a newer version of Assista; update Assista."),
    "sync_file_newer": QT_TRANSLATE_NOOP(
        "Errors", "{file} was written by a newer version of Assista; update Assista to sync."),
    "sync_busy": QT_TRANSLATE_NOOP(
        "Errors", "Another sync of this data folder is running; this one was skipped."),
    "sync_item_too_large": QT_TRANSLATE_NOOP(
        "Errors", "A change on this device is {size}, more than the sync target {target} accepts "
        "in one upload ({limit}); it stays on this device. Delete it, or raise the server's "
        "upload limit, to sync again."),
    "sync_item_too_large+chat": QT_TRANSLATE_NOOP(
        "Errors", "A message in the chat {chat} is {size}, more than the sync target {target} "
        "accepts in one upload ({limit}); it stays on this device. Delete it, or raise the "
        "server's upload limit, to sync again."),
    "sync_uploads_lost": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} does not hold {count} of the files it accepted: the "
        "server lost them. Nothing is lost here; the next sync sends them again."),
    "sync_file_vanished": QT_TRANSLATE_NOOP(
        "Errors", "{file} disappeared from the sync target during the sync; nothing was changed "
        "here, the next sync will read it."),
    "sync_key_lost": QT_TRANSLATE_NOOP("Errors", "The sync target {target} lost {file}."),
    "sync_auth_failed": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} refused the credentials (HTTP {status}); check the "
        "user name and the password. Nothing was changed here."),
    "sync_forbidden": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} refused access (HTTP {status}); check the "
        "credentials and the path. Nothing was changed here."),
    "sync_not_found": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} has no such folder or bucket (HTTP {status}). "
        "Nothing was changed here."),
    "sync_upload_refused": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} refused a file as too large (HTTP {status}). "
        "Nothing was changed here."),
    "sync_target_full": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} is out of space (HTTP {status}); free some space "
        "on it. Nothing was changed here."),
    "sync_server_error": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} failed (HTTP {status}); try again later. Nothing "
        "was changed here."),
    "sync_refused": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} answered HTTP {status}. Nothing was changed here."),
    "sync_reply_too_large": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} sent more than {limit}, so it was not read (the "
        "server or a proxy in between is broken). Nothing was changed here."),
    "sync_timeout": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} did not answer in time; your data here was not "
        "changed and the next sync will try again."),
    "sync_unreachable": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} cannot be reached; your data here was not changed "
        "and the next sync will try again."),
    "sync_dropped": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} dropped the connection; your data here was not "
        "changed and the next sync will try again."),
    "sync_failed": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} failed; your data here was not changed and the next "
        "sync will try again."),
    "sync_folder_failed": QT_TRANSLATE_NOOP(
        "Errors", "The sync folder {target} failed. Nothing was changed here."),
    "sync_file_url": QT_TRANSLATE_NOOP(
        "Errors", "A file URL names a folder on this machine by its full path: file:///path "
        "({url})."),
    "sync_file_foreign": QT_TRANSLATE_NOOP(
        "Errors", "{file} in the sync folder {target} is larger than {limit}: not a file "
        "Assista wrote. Nothing was changed here."),
    "sync_s3_no_bucket": QT_TRANSLATE_NOOP(
        "Errors", "The S3 URL {url} has no bucket: s3://bucket/prefix."),
    "sync_s3_credentials": QT_TRANSLATE_NOOP(
        "Errors", "S3 sync needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to be set."),
    "sync_bad_listing": QT_TRANSLATE_NOOP(
        "Errors", "The sync target {target} sent a list of files that cannot be read. Nothing "
        "was changed here."),
    "sync_webdav_no_host": QT_TRANSLATE_NOOP("Errors", "The WebDAV URL {url} has no host."),
    "sync_webdav_password": QT_TRANSLATE_NOOP(
        "Errors", "Put the WebDAV password in {variable}, not in the URL."),
    # -- files, documents, attachments ----------------------------------------------------
    "file_unreadable": QT_TRANSLATE_NOOP("Errors", "Cannot read {file}."),
    "not_a_file": QT_TRANSLATE_NOOP("Errors", "{file} is not a file."),
    "file_empty": QT_TRANSLATE_NOOP("Errors", "{file} is empty."),
    "not_utf8": QT_TRANSLATE_NOOP("Errors", "{file} is not UTF-8 text."),
    "not_csv": QT_TRANSLATE_NOOP("Errors", "{file} is not valid CSV."),
    "not_a_pdf": QT_TRANSLATE_NOOP(
        "Errors", "{file} is not a PDF (its content does not start like one: a damaged download "
        "or another kind of file)."),
    "pdf_password": QT_TRANSLATE_NOOP(
        "Errors", "{file} is password-protected; open it with its password and save an "
        "unprotected copy to attach it."),
    "attachment_too_large": QT_TRANSLATE_NOOP(
        "Errors", "{file} is too large to attach ({size} MB; the limit is {limit} MB)."),
    "document_too_large": QT_TRANSLATE_NOOP(
        "Errors", "{file} is too large to read ({size}; the limit is {limit} MB)."),
    "document_unpacks_too_large": QT_TRANSLATE_NOOP(
        "Errors", "{file} unpacks to more than {limit} MB; it is not read."),
    "document_unsupported": QT_TRANSLATE_NOOP(
        "Errors", "{file} is not a text file or a supported document (PDF, DOCX, XLSX, CSV, "
        "PPTX, HTML, EPUB, Markdown, source code)."),
    "document_no_text": QT_TRANSLATE_NOOP("Errors", "{file} has no text to read."),
    "document_no_text_scanned": QT_TRANSLATE_NOOP(
        "Errors", "{file} has no text to read (scanned pages without a text layer?)."),
    "document_damaged": QT_TRANSLATE_NOOP("Errors", "{file} is damaged."),
    "document_not_real": QT_TRANSLATE_NOOP(
        "Errors", "{file} is damaged or not a real {kind} file."),
    # -- knowledge bases ------------------------------------------------------------------
    "knowledge_name_needed": QT_TRANSLATE_NOOP("Errors", "A knowledge base needs a name."),
    "knowledge_exists": QT_TRANSLATE_NOOP(
        "Errors", "There is already a knowledge base named {name}."),
    "no_knowledge_base": QT_TRANSLATE_NOOP("Errors", "There is no knowledge base named {name}."),
    "paths_missing": QT_TRANSLATE_NOOP("Errors", "No such file or folder: {paths}."),
    "index_too_large": QT_TRANSLATE_NOOP("Errors", "{file} is too large to index."),
    "link_broken": QT_TRANSLATE_NOOP("Errors", "{file} is a link to nothing."),
    "link_outside": QT_TRANSLATE_NOOP(
        "Errors", "{file} is a link out of the folder (links are followed only inside it)."),
    "embedding_no_api": QT_TRANSLATE_NOOP("Errors", "There is no embedding API {kind}."),
    "embedding_unsupported": QT_TRANSLATE_NOOP(
        "Errors", "Providers of the kind {kind} cannot make embeddings."),
    "embedding_failed": QT_TRANSLATE_NOOP("Errors", "The embedding request failed."),
    "embedding_model_unusable": QT_TRANSLATE_NOOP(
        "Errors", "The embedding model {model} at {url} cannot be used; nothing was changed."),
    # -- MCP servers ----------------------------------------------------------------------
    "no_mcp_running": QT_TRANSLATE_NOOP("Errors", "No MCP servers are running."),
    "no_mcp_server": QT_TRANSLATE_NOOP("Errors", "There is no MCP server named {name}."),
    "bundle_unknown": QT_TRANSLATE_NOOP("Errors", "There is no MCP server named {name}."),
    "mcp_server_exists": QT_TRANSLATE_NOOP(
        "Errors", "There is already an MCP server named {name}."),
    "prompt_needs_arguments": QT_TRANSLATE_NOOP("Errors", "The prompt {prompt} needs {names}."),
    "catalog_values_missing": QT_TRANSLATE_NOOP("Errors", "These values are required: {names}."),
    "mcp_registry_unreadable": QT_TRANSLATE_NOOP(
        "Errors", "The MCP registry could not be read and there is no saved copy yet."),
    "mcp_config_json": QT_TRANSLATE_NOOP(
        "Errors", "The MCP configuration is not valid JSON (line {line})."),
    "mcp_config_unreadable": QT_TRANSLATE_NOOP(
        "Errors", "Cannot read the MCP configuration {file}."),
    "mcp_config_shape": QT_TRANSLATE_NOOP(
        "Errors", "The MCP configuration must be a JSON object with an mcpServers key."),
    "mcp_unnamed_server": QT_TRANSLATE_NOOP(
        "Errors", "The MCP configuration holds a single server without a name: put it under "
        "mcpServers, with its name as the key."),
    "mcp_servers_shape": QT_TRANSLATE_NOOP(
        "Errors", "mcpServers must map server names to their settings."),
    "mcp_no_servers": QT_TRANSLATE_NOOP("Errors", "The MCP configuration lists no servers."),
    "mcp_server_shape": QT_TRANSLATE_NOOP(
        "Errors", "MCP server {server}: its settings must be a JSON object."),
    "mcp_strings_needed": QT_TRANSLATE_NOOP(
        "Errors", "MCP server {server}: {key} must be an object of strings."),
    "mcp_unknown_transport": QT_TRANSLATE_NOOP(
        "Errors", "MCP server {server}: unknown transport {transport}."),
    "mcp_server_invalid": QT_TRANSLATE_NOOP(
        "Errors", "The settings of MCP server {server} are not valid."),
}
