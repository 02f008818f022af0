"""The quick-ask window: a small always-on-top window over whatever the user is doing."""
