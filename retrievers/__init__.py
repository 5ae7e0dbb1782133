"""Placeholder package: see the open issues for what comes here."""
