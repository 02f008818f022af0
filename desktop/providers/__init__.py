"""Provider adapters: one module per wire API. No Qt here."""
