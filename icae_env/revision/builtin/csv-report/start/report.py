#!/usr/bin/env python3
"""Summarise a sales CSV export: units and revenue per region, plus a grand total.

Usage: python3 report.py [--sort {region,revenue}] FILE.csv

The CSV needs the columns region, units and unit_price (other columns are ignored).
"""

import argparse
import csv
import sys

RULE = "-" * 38


class ReportError(Exception):
    """A problem with the input file, reported without a traceback."""


def load_totals(path):
    """Return ({region: [units, revenue]}, number of data rows)."""
    totals = {}
    rows = 0
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = {"region", "units", "unit_price"} - set(reader.fieldnames or ())
            if missing:
                raise ReportError(f"{path}: missing column(s): {', '.join(sorted(missing))}")
            for line_no, row in enumerate(reader, start=2):
                region = row["region"].strip()
                try:
                    units = int(row["units"])
                    price = float(row["unit_price"])
                except ValueError:
                    raise ReportError(
                        f"{path}, line {line_no}: bad number (units={row['units']!r}, unit_price={row['unit_price']!r})"
                    ) from None
                entry = totals.setdefault(region, [0, 0.0])
                entry[0] += units
                entry[1] += units * price
                rows += 1
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror}") from None
    return totals, rows


def order_regions(totals, sort):
    if sort == "revenue":
        return sorted(totals, key=lambda region: (-totals[region][1], region))
    return sorted(totals)


def format_line(label, units, revenue):
    return f"{label:<14}{units:>9,}{revenue:>15,.2f}"


def render(path, totals, rows, regions):
    lines = [f"Sales report: {path}", f"Rows: {rows}", "", f"{'Region':<14}{'Units':>9}{'Revenue':>15}", RULE]
    for region in regions:
        lines.append(format_line(region, *totals[region]))
    lines.append(RULE)
    grand_units = sum(units for units, _ in totals.values())
    grand_revenue = sum(revenue for _, revenue in totals.values())
    lines.append(format_line("TOTAL", grand_units, grand_revenue))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description="Summarise a sales CSV: units and revenue per region.")
    parser.add_argument("file", help="sales CSV with region, units and unit_price columns")
    parser.add_argument(
        "--sort",
        choices=("region", "revenue"),
        default="region",
        help="order regions by name (default) or by revenue, highest first",
    )
    args = parser.parse_args(argv)
    try:
        totals, rows = load_totals(args.file)
    except ReportError as exc:
        print(f"report.py: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(render(args.file, totals, rows, order_regions(totals, args.sort)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
