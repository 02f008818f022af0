"""The main window: composition of the panes, start-up, and the adapter from the chat
service to Qt signals."""
