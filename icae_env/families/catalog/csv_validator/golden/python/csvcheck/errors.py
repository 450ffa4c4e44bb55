"""The one fatal error: a request or file problem that stops the check."""


class Fatal(Exception):
    """Stops the check; its text is the report's only line after the title (without "error: ")."""
