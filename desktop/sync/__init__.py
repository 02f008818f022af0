"""Sync of chats between the user's devices through storage they own (no Qt).

Each device appends its changes as encrypted, immutable, numbered segments under
its own folder on a target (a folder, WebDAV or S3) and merges the other devices'
segments into its database. See :mod:`desktop.sync.run` for one sync run.
"""
