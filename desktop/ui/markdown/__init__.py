"""Markdown and math rendered for Qt: parsing, incremental streaming, segments and
the message body view."""
