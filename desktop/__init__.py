"""Tiebreak: review pairs of AI responses side by side with an LLM judge."""

__version__ = "0.1.0"
