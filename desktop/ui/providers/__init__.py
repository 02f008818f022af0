"""Providers: the Providers dialog, its forms, model behaviour options and model prices."""
