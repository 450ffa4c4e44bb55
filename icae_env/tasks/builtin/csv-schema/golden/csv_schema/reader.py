"""RFC 4180-style record reader that keeps spreadsheet row numbers."""
from .errors import CsvSyntaxError


def read_records(text):
    """Split `text` into records: list of (row_number, [fields]).

    CRLF is normalised to LF first. Rows are numbered from 1 (the header); blank lines outside
    quotes are skipped and get no number. Fields are never trimmed.
    """
    text = text.replace("\r\n", "\n")
    records = []
    row = 1
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\n":
            i += 1
            continue
        fields = []
        while True:
            if i < n and text[i] == '"':
                i += 1
                buf = []
                while True:
                    if i >= n:
                        raise CsvSyntaxError("unterminated", row)
                    ch = text[i]
                    if ch == '"':
                        if i + 1 < n and text[i + 1] == '"':
                            buf.append('"')
                            i += 2
                            continue
                        i += 1
                        break
                    buf.append(ch)
                    i += 1
                if i < n and text[i] not in ",\n":
                    raise CsvSyntaxError("malformed", row)
                fields.append("".join(buf))
            else:
                start = i
                while i < n and text[i] not in ",\n":
                    if text[i] == '"':
                        raise CsvSyntaxError("malformed", row)
                    i += 1
                fields.append(text[start:i])
            if i < n and text[i] == ",":
                i += 1
                continue
            if i < n:
                i += 1          # the record's '\n'
            break
        records.append((row, fields))
        row += 1
    return records
