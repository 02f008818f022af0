"""Core domain: messages, stream events, the orchestrator loop. No Qt here."""
