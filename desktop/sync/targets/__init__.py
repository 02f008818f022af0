"""Where segments are stored: a folder, a WebDAV server or S3-compatible storage."""
