#!/usr/bin/env bash
# rcb_tests/test.sh: run every case of rcb_tests/<cases-dir>/*.json through the adapter,
# one process per case, writing raw stdout to rcb_tests/stdout/<cases-dir>/<stem>@<i>.txt
set -u
cd "$(dirname "$0")/.." || exit 1
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
  # one interpreter call per case file: split every case input into its own file
  n=$(python3 - "$f" "$TMP" <<'PY'
import json, os, sys
try:
    cases = json.load(open(sys.argv[1], encoding="utf-8")).get("cases", [])
except Exception:
    cases = []
for i, case in enumerate(cases):
    with open(os.path.join(sys.argv[2], f"in_{i}.json"), "w", encoding="utf-8") as fh:
        json.dump(case.get("input") if isinstance(case, dict) else None, fh, ensure_ascii=False)
print(len(cases))
PY
)
  for ((i = 0; i < ${n:-0}; i++)); do
    python3 adapter.py < "$TMP/in_$i.json" > "$OUT/$stem@$i.txt"
  done
  rm -f "$TMP"/in_*.json
done
exit 0
