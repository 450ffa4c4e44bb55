"""Execution adapter: one JSON value on stdin, the tool's output on stdout."""

import json
import sys

from golden_package import handle

if __name__ == "__main__":
    print(handle(json.load(sys.stdin)), end="")
