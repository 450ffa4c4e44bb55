"""Error types raised by the core; the adapter renders them as one line."""


class CronSyntaxError(ValueError):
    """A malformed cron expression.

    ``field`` is None for the field-count error, otherwise one of the field names
    (minute, hour, day-of-month, month, day-of-week).
    """

    def __init__(self, field, reason):
        self.field = field
        self.reason = reason
        super().__init__(self.render())

    def render(self):
        if self.field is None:
            return self.reason
        return f"{self.field}: {self.reason}"


class InputError(ValueError):
    """A bad request value (timestamp, count, ...), not a cron syntax problem."""
