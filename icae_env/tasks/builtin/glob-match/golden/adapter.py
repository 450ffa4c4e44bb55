"""stdin/stdout adapter: one JSON request in, the answer (or one error line) out."""
import json
import sys

from globmatch import GlobError, Glob, render_translation

OPS = ("match", "filter", "translate")


class RequestError(Exception):
    pass


def _validate(request):
    if not isinstance(request, dict):
        raise RequestError("input must be a JSON object")
    op = request.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise RequestError("op must be one of match, filter, translate")
    pattern = request.get("pattern")
    if not isinstance(pattern, str) or pattern == "":
        raise RequestError("pattern must be a non-empty string")
    ignore_case = request.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise RequestError("ignore_case must be true or false")
    if op == "match" and not isinstance(request.get("path"), str):
        raise RequestError("path must be a string")
    if op == "filter":
        paths = request.get("paths")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise RequestError("paths must be a list of strings")
    return op, pattern, ignore_case


def run(request):
    """Return the full stdout text for one request."""
    try:
        op, pattern, ignore_case = _validate(request)
        glob = Glob(pattern, ignore_case)
    except (RequestError, GlobError) as exc:
        return f"error: {exc}\n"
    if op == "match":
        lines = ["true" if glob.matches(request["path"]) else "false"]
    elif op == "filter":
        lines = glob.filter(request["paths"]) or ["no paths matched"]
    else:
        lines = render_translation(glob.alternatives, ignore_case)
    return "".join(line + "\n" for line in lines)


def main():
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    try:
        request = json.loads(sys.stdin.read())
    except ValueError:
        sys.stdout.write("error: input must be a JSON object\n")
        return
    sys.stdout.write(run(request))


if __name__ == "__main__":
    main()
