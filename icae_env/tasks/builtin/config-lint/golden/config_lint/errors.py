"""Typed errors raised by the core."""


class ConfigError(Exception):
    """Base class of every error the core raises."""


class ConfigParseError(ConfigError):
    """The text has a fatal problem; carries the first offending Issue."""

    def __init__(self, issue):
        super().__init__(str(issue))
        self.issue = issue


class LookupFailed(ConfigError):
    """A dotted key path could not be resolved."""

    def __init__(self, reason, path):
        super().__init__(f"{reason}: {path}")
        self.reason = reason
        self.path = path


class ConversionError(ConfigError):
    """A raw value could not be converted to the requested type."""

    def __init__(self, type_name, path):
        super().__init__(f"cannot convert to {type_name}: {path}")
        self.type_name = type_name
        self.path = path
