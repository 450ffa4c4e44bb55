"""The JavaScript building blocks of ``dependency-order``: one per (decision, value), as the Python ones."""

from __future__ import annotations

BLOCKS_JS = {
    "tie": {
        "listed": "const arrange = (names) => [...names];\n",
        "name_asc": "const arrange = (names) => [...names].sort(byCode);\n",
        "natural": "const arrange = (names) => [...names].sort(naturalCompare);\n",
    },
    "missing_report": {
        "first": "const reportMissing = (names) => names.slice(0, 1);\n",
        "all_met": "const reportMissing = (names) => [...names];\n",
        "all_sorted": "const reportMissing = (names) => [...names].sort(byCode);\n",
    },
    "precedence": {
        "cycle": "const firstKind = (result) => (result.cycles.length ? 'cycle' : 'missing');\n",
        "missing": "const firstKind = (result) => (result.missing.length ? 'missing' : 'cycle');\n",
        "first_met": "const firstKind = (result) => result.events[0];\n",
    },
    "cycle_start": {
        "entry": "const startAt = (loop) => loop;\n",
        "smallest": """function startAt(loop) {
  const at = loop.indexOf(loop.reduce((low, name) => (name < low ? name : low)));
  return [...loop.slice(at), ...loop.slice(0, at)];
}
""",
    },
    "self_dep": {"cycle": "const KEEP_SELF = true;\n", "ignore": "const KEEP_SELF = false;\n"},
    "bad_entries": {
        "reject": "const namesIn = (values) => (values.every(isName) ? [...values] : null);\n",
        "skip": "const namesIn = (values) => values.filter(isName);\n",
    },
    "case_rule": {
        "exact": "const canonical = (name) => name;\n",
        "lower": "const canonical = (name) => name.toLowerCase();\n",
        "normalized": "const canonical = (name) => name.toLowerCase().replace(/[-_.]+/g, '-');\n",
    },
    "scope": {
        "reachable": "const starts = (graph, root) => [root];\n",
        "whole": "const starts = (graph, root) => [root, ...arrange([...graph.keys()])];\n",
    },
    "stage_rule": {
        "earliest": "const place = (order, graph) => depths(order, graph);\n",
        "latest": """function place(order, graph) {
  const last = order[order.length - 1];
  const stage = new Map([[last, depths(order, graph).get(last)]]);
  for (const name of order.slice(0, -1).reverse()) {
    let low = Infinity;
    for (const [user, at] of stage) if (graph.get(user).includes(name)) low = Math.min(low, at);
    stage.set(name, low - 1);
  }
  return stage;
}
""",
    },
    "installed_deps": {
        "checked": "const leaves = (installed, graph) => new Set([...installed].filter((name) => !graph.has(name)));\n",
        "trusted": "const leaves = (installed) => new Set(installed);\n",
    },
    "why_path": {
        "first_found": """function findChain(graph, root, target) {
  const path = [root];
  const nexts = [0];
  const seen = new Set([root]);
  while (path.length) {
    if (path[path.length - 1] === target) return path;
    const deps = graph.get(path[path.length - 1]) || [];
    const at = nexts.length - 1;
    if (nexts[at] === deps.length) {
      path.pop();
      nexts.pop();
      continue;
    }
    const dep = deps[nexts[at]];
    nexts[at] += 1;
    if (!seen.has(dep)) {
      seen.add(dep);
      path.push(dep);
      nexts.push(0);
    }
  }
  return null;
}
""",
        "shortest": """function findChain(graph, root, target) {
  const parent = new Map([[root, null]]);
  const queue = [root];
  for (let i = 0; i < queue.length; i += 1) {
    let name = queue[i];
    if (name === target) {
      const chain = [];
      while (name !== null) {
        chain.push(name);
        name = parent.get(name);
      }
      return chain.reverse();
    }
    for (const dep of graph.get(name) || []) {
      if (!parent.has(dep)) {
        parent.set(dep, name);
        queue.push(dep);
      }
    }
  }
  return null;
}
""",
    },
    "why_direction": {
        "down": "const chainText = (chain) => chain.join(' -> ');\n",
        "up": "const chainText = (chain) => [...chain].reverse().join(' <- ');\n",
    },
    "impact_order": {"map": "const REBUILD_ORDER = false;\n", "rebuild": "const REBUILD_ORDER = true;\n"},
    "impact_scope": {
        "transitive": """function dependents(graph, target) {
  const hit = new Set([target]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [name, deps] of graph) {
      if (!hit.has(name) && deps.some((dep) => hit.has(dep))) {
        hit.add(name);
        grew = true;
      }
    }
  }
  return hit;
}
""",
        "direct": """function dependents(graph, target) {
  return new Set([...graph].filter(([, deps]) => deps.includes(target)).map(([name]) => name));
}
""",
    },
}

_EXPORTS = (
    "ITEM, KEEP_SELF, REBUILD_ORDER, arrange, canonical, chainText, dependents, findChain, firstKind, leaves, namesIn, "
    "place, reportMissing, starts, startAt"
)
FALLBACK_BLOCKS_JS = {name: next(iter(values.values())) for name, values in BLOCKS_JS.items()}


def rules_module_js(values: dict[str, str], item: str) -> str:
    """``src/rules.js``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = [
        "'use strict';\n// The house rules of this resolver (one block per product decision).\n",
        "const { byCode, depths, isName, naturalCompare } = require('./common');\n",
        f"const ITEM = {item!r};\n",
    ]
    for name, blocks in BLOCKS_JS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS_JS[name])
    parts.append(f"module.exports = {{ {_EXPORTS} }};\n")
    return "\n".join(parts)
