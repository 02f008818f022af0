"""The request inspector panel: what was sent for an answer, what came back, Replay."""
