#!/usr/bin/env bash
# Run every case of rcb_tests/<cases-dir>/*.json through adapter.py, one process per case.
# Raw stdout goes to rcb_tests/stdout/<cases-dir>/<stem>@<i>.txt (i is the zero-based case index).
set -u
cd "$(dirname "$0")/.." || exit 1
CASES_DIR=public_test_cases
while [ $# -gt 0 ]; do
  case "$1" in
    --cases-dir) CASES_DIR="${2:-public_test_cases}"; shift; [ $# -gt 0 ] && shift ;;
    --cases-dir=*) CASES_DIR="${1#--cases-dir=}"; shift ;;
    *) shift ;;
  esac
done
OUT="rcb_tests/stdout/$CASES_DIR"
mkdir -p "$OUT"
[ -d "rcb_tests/$CASES_DIR" ] || exit 0
WORK="rcb_tests/.inputs.$$"
trap 'rm -rf "$WORK"' EXIT
for f in rcb_tests/"$CASES_DIR"/*.json; do
  [ -e "$f" ] || continue
  stem=$(basename "$f" .json)
  rm -rf "$WORK"; mkdir -p "$WORK"
  # One interpreter call per case file: split the inputs into $WORK/<i>.json, print the count.
  n=$(python3 - "$f" "$WORK" <<'PY'
import json, os, sys
try:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cases = json.load(fh).get("cases", [])
except (OSError, ValueError, AttributeError):
    cases = []
for i, case in enumerate(cases):
    with open(os.path.join(sys.argv[2], f"{i}.json"), "w", encoding="utf-8") as fh:
        json.dump(case.get("input") if isinstance(case, dict) else None, fh)
print(len(cases))
PY
) || n=0
  for ((i = 0; i < n; i++)); do
    python3 adapter.py < "$WORK/$i.json" > "$OUT/$stem@$i.txt" 2>/dev/null
  done
done
exit 0
