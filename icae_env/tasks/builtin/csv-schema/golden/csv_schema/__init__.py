"""csv_schema: validate CSV text against a column schema.

Pure library: no stdin/stdout/JSON handling here (see adapter.py).
"""
from .errors import CsvSchemaError, SchemaError, CsvSyntaxError, MissingHeader
from .schema import Column, Schema, parse_schema
from .reader import read_records
from .validator import Violation, Report, validate
from .report import render_report

__all__ = [
    "CsvSchemaError", "SchemaError", "CsvSyntaxError", "MissingHeader",
    "Column", "Schema", "parse_schema", "read_records",
    "Violation", "Report", "validate", "render_report",
]
