"""stdin/stdout adapter: one JSON object in, the decision lines and summary (or one error line) out."""

import json
import sys

from token_bucket import ConfigError, parse_config, render, simulate


def run(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return "error: invalid config: input\n"
    try:
        config, events = parse_config(data)
    except ConfigError as exc:
        return f"error: invalid config: {exc.field}\n"
    return render(simulate(config, events))


def main() -> None:
    sys.stdout.write(run(sys.stdin.read()))


if __name__ == "__main__":
    main()
