"""A small revision pack written on the fly for tests: a static page, a CLI and a data file."""

from __future__ import annotations

from pathlib import Path

import yaml

_PAGE = """<!doctype html>
<html><head><title>Shop</title>{style}</head>
<body>
<h1 id="title">Shop</h1>
<ul id="items"><li>apple</li><li>pear</li></ul>
{count}<button id="add">Add</button>
<script src="app.js"></script>
</body></html>
"""
_START_JS = """document.getElementById('add').addEventListener('click', () => {
  const li = document.createElement('li'); li.textContent = 'new';
  document.getElementById('items').appendChild(li);
});
"""
_GOLDEN_JS = _START_JS.replace(
    "appendChild(li);",
    "appendChild(li);\n  const n = document.querySelectorAll('#items li').length;\n"
    "  document.getElementById('count').textContent = String(n);",
)
_START_TOOL = "import sys\nprint('hello')\n"
_GOLDEN_TOOL = "import sys\nprint('HELLO' if '--shout' in sys.argv else 'hello')\n"

CRITERIA = [
    {
        "id": "AC01",
        "category": "interaction",
        "text": "Adding an item updates the live count.",
        "check": {
            "type": "browser",
            "path": "/index.html",
            "actions": [{"do": "click", "selector": "#add"}],
            "expect": [{"selector": "#items li", "count": 3}, {"selector": "#count", "text": {"equals": "3"}}],
        },
    },
    {
        "id": "AC02",
        "category": "visual",
        "text": "The title is blue.",
        "check": {
            "type": "browser",
            "path": "/index.html",
            "expect": [{"selector": "#title", "style": "color", "value": {"equals": "rgb(0, 0, 255)"}}],
        },
    },
    {
        "id": "AC03",
        "category": "preservation",
        "text": "The existing items and heading stay.",
        "check": {
            "type": "browser",
            "path": "/index.html",
            "expect": [{"selector": "#items li", "count": 2}, {"selector": "#title", "text": {"equals": "Shop"}}],
        },
    },
    {
        "id": "AC04",
        "category": "functional",
        "text": "tool.py --shout prints HELLO.",
        "check": {
            "type": "command",
            "run": "python3 tool.py --shout",
            "expect": [{"exit_code": 0, "stdout": {"equals": "HELLO"}}],
        },
    },
    {
        "id": "AC05",
        "category": "preservation",
        "text": "tool.py prints hello by default.",
        "check": {
            "type": "command",
            "run": "python3 tool.py",
            "expect": [{"exit_code": 0}, {"stdout": {"equals": "hello"}}],
        },
    },
    {
        "id": "AC06",
        "category": "preservation",
        "text": "data.json is untouched.",
        "check": {
            "type": "source",
            "expect": [
                {"file": "data.json", "unchanged": True},
                {"file": "data.json", "json_path": "version", "equals": 1},
            ],
        },
    },
    {
        "id": "AC07",
        "category": "content",
        "text": "The page has a count element.",
        "check": {
            "type": "http",
            "requests": [{"path": "/index.html", "status": 200, "text": {"contains": 'id="count"'}}],
        },
    },
]


def _write_app(root: Path, golden: bool) -> None:
    root.mkdir(parents=True)
    style = "<style>#title { color: blue; }</style>" if golden else ""
    count = '<p>Items: <span id="count">2</span></p>\n' if golden else ""
    (root / "index.html").write_text(_PAGE.format(style=style, count=count))
    (root / "app.js").write_text(_GOLDEN_JS if golden else _START_JS)
    (root / "tool.py").write_text(_GOLDEN_TOOL if golden else _START_TOOL)
    (root / "data.json").write_text('{"version": 1}\n')


def write_revision_pack(base: Path, name: str = "mini-shop", **overrides: object) -> Path:
    """Write the pack ``base/name`` and return its path; ``overrides`` replace task.yaml fields."""
    pack = base / name
    _write_app(pack / "start", golden=False)
    _write_app(pack / "golden", golden=True)
    (pack / "attachments").mkdir()
    (pack / "attachments" / "note.md").write_text("Please add a live count with id count.\n")
    spec = {
        "id": name,
        "title": "Mini shop",
        "language": "javascript",
        "request": "Show a live item count (id count) next to the list, make the title blue, add tool.py --shout.",
        "attachments": [{"source": "attachments/note.md", "dest": "docs/note.md", "description": "a note"}],
        "app": {"start": "python3 -m http.server {port} --bind 127.0.0.1", "ready_timeout_s": 10},
        "criteria": CRITERIA,
        **overrides,
    }
    (pack / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return pack
