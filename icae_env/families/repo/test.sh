#!/usr/bin/env bash
# rcb_tests/test.sh: every case of rcb_tests/<cases-dir>/*.json through the adapter, one process per case,
# raw stdout to rcb_tests/stdout/<cases-dir>/<stem>@<i>.txt
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
if [ -f adapter.py ]; then
  RUN=(python3 adapter.py); SPLIT=(python3 rcb_tests/split_cases.py)
else
  RUN=(node adapter.js); SPLIT=(node rcb_tests/split_cases.js)
fi
OUT="rcb_tests/stdout/$CASES_DIR"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in rcb_tests/"$CASES_DIR"/*.json; do
  [ -e "$f" ] || continue
  stem=$(basename "$f" .json)
  rm -f "$TMP"/*.json
  n=$("${SPLIT[@]}" "$f" "$TMP") || n=0
  for ((i = 0; i < ${n:-0}; i++)); do
    "${RUN[@]}" < "$TMP/$i.json" > "$OUT/$stem@$i.txt"
  done
done
exit 0
