"""Typed errors raised by the core."""


class CsvSchemaError(Exception):
    """Base class of every fatal error."""


class SchemaError(CsvSchemaError):
    """The schema object is malformed."""


class CsvSyntaxError(CsvSchemaError):
    """Broken quoting; `kind` is 'unterminated' or 'malformed', `row` the record number."""

    def __init__(self, kind, row):
        super().__init__(f"{kind} quote/quoting problem in row {row}")
        self.kind = kind
        self.row = row


class MissingHeader(CsvSchemaError):
    """The CSV text holds no record at all."""
