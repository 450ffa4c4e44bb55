"""cron_next: compute upcoming fire times of 5-field cron expressions (UTC, minute precision)."""
from .errors import CronSyntaxError, InputError
from .parser import CronSchedule, parse_expression
from .schedule import next_fire_times, search

__all__ = ["CronSyntaxError", "InputError", "CronSchedule", "parse_expression", "next_fire_times", "search"]
