"""Judging pairs with a model: planning what is left, calling, parsing, storing."""

from desktop.services.judging.job import JobOptions, JobProgress, JobSummary, JudgeJob

__all__ = ["JobOptions", "JobProgress", "JobSummary", "JudgeJob"]
