"""Split an ICAE case file into one input file per case (``<dir>/<i>.json``) and print how many there are."""

import json
import os
import sys

try:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cases = json.load(fh).get("cases", [])
except Exception:
    cases = []
for i, case in enumerate(cases):
    with open(os.path.join(sys.argv[2], f"{i}.json"), "w", encoding="utf-8") as fh:
        json.dump(case.get("input") if isinstance(case, dict) else None, fh, ensure_ascii=False)
print(len(cases))
