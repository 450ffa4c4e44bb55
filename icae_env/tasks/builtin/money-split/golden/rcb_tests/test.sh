#!/usr/bin/env bash
# Run every case of rcb_tests/<cases-dir>/*.json through the adapter, one node process per case.
# Usage: bash rcb_tests/test.sh [--cases-dir <sub>]   (default: public_test_cases)
set -u
cd "$(dirname "$0")/.."
CASES_DIR=public_test_cases
while [ $# -gt 0 ]; do
  case "$1" in
    --cases-dir) CASES_DIR="${2:-public_test_cases}"; shift 2 || shift ;;
    --cases-dir=*) CASES_DIR="${1#--cases-dir=}"; shift ;;
    *) shift ;;
  esac
done
OUT="rcb_tests/stdout/$CASES_DIR"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in rcb_tests/"$CASES_DIR"/*.json; do
  [ -e "$f" ] || continue
  stem=$(basename "$f" .json)
  rm -f "$TMP"/*.json
  # One node call per case file: write each case input to $TMP/<i>.json and print the case count.
  n=$(node -e '
    const fs = require("fs");
    let cases = [];
    try { cases = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).cases || []; } catch (e) { cases = []; }
    cases.forEach((c, i) => fs.writeFileSync(`${process.argv[2]}/${i}.json`, JSON.stringify(c.input === undefined ? null : c.input)));
    console.log(cases.length);
  ' "$f" "$TMP") || n=0
  for ((i = 0; i < n; i++)); do
    node adapter.js < "$TMP/$i.json" > "$OUT/$stem@$i.txt"
  done
done
exit 0
