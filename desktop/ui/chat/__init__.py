"""The conversation pane: the virtual message column, message widgets and the composer."""
