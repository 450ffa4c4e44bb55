"""The JavaScript golden of ``dependency-order``: the same core and blocks as the Python one, line for line.

``src/index.js`` exports ``handle(data)`` (the whole stdout of one request); the framework adds ``adapter.js``.
Graphs are ``Map`` objects (a name such as ``constructor`` is an ordinary key), sorting is by UTF-16 code units
(the same as Python's code points for the names the samplers draw) and sorts are stable, as Python's are.
"""

from __future__ import annotations

from icae_env.families.catalog.dependency_order_rules_js import rules_module_js

CORE_JS = {
    "src/common.js": """'use strict';
// Helpers the house rules build on: natural name order and dependency depth.

const byCode = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const isName = (v) => typeof v === 'string' && v !== '';

function runs(name) {
  return (name.match(/[0-9]+|[^0-9]+/g) || []).map((run) => {
    if (run[0] >= '0' && run[0] <= '9') {
      const digits = run.replace(/^0+/, '');
      return [0, digits.length, digits];
    }
    return [1, 0, run];
  });
}

function compareRun(a, b) {
  for (let i = 0; i < 3; i += 1) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

/** Digit runs by their value, other runs by character code, then the names themselves. */
function naturalCompare(a, b) {
  const x = runs(a);
  const y = runs(b);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const c = compareRun(x[i], y[i]);
    if (c) return c;
  }
  if (x.length !== y.length) return x.length - y.length;
  return byCode(a, b);
}

/** Name -> 1 + the deepest of its dependencies (names without dependencies are 1), over an install order. */
function depths(order, graph) {
  const depth = new Map();
  for (const name of order) {
    let deepest = 0;
    for (const dep of graph.get(name)) if (depth.has(dep)) deepest = Math.max(deepest, depth.get(dep));
    depth.set(name, deepest + 1);
  }
  return depth;
}

module.exports = { byCode, isName, naturalCompare, depths };
""",
    "src/graph.js": """'use strict';
// The request's map as a graph of names, each with its dependencies in visiting order.

const { KEEP_SELF, arrange, canonical, namesIn } = require('./rules');

/** Name -> dependencies (duplicates dropped, in visiting order); spellings merged by the house name rule. */
function buildGraph(raw) {
  const graph = new Map();
  for (const [key, deps] of Object.entries(raw)) {
    const name = canonical(key);
    if (!graph.has(name)) graph.set(name, []);
    const own = graph.get(name);
    for (const spelled of namesIn(deps)) {
      const dep = canonical(spelled);
      if (!own.includes(dep) && (KEEP_SELF || dep !== name)) own.push(dep);
    }
  }
  for (const [name, deps] of graph) graph.set(name, arrange(deps));
  return graph;
}

module.exports = { buildGraph };
""",
    "src/walk.js": """'use strict';
// The depth-first walk every report is built on: the post-order, and the problems in the order met.

const { startAt } = require('./rules');

const ON_PATH = 1;
const DONE = 2;

/** Walk from each start in turn (iteratively); `leaves` are present but never expanded. */
function walk(graph, starts, leaves = new Set()) {
  const result = { order: [], missing: [], cycles: [], events: [] };
  const state = new Map();
  const seen = new Set();
  for (const start of starts) {
    if (state.has(start) || leaves.has(start)) continue;
    const path = [start];
    const nexts = [0];
    state.set(start, ON_PATH);
    while (path.length) {
      const top = path[path.length - 1];
      const deps = graph.get(top);
      const at = nexts.length - 1;
      if (nexts[at] === deps.length) {
        path.pop();
        nexts.pop();
        state.set(top, DONE);
        result.order.push(top);
        continue;
      }
      const dep = deps[nexts[at]];
      nexts[at] += 1;
      if (state.get(dep) === ON_PATH) {
        result.cycles.push(startAt(path.slice(path.indexOf(dep))));
        result.events.push('cycle');
      } else if (state.get(dep) === DONE || leaves.has(dep)) {
        continue;
      } else if (!graph.has(dep)) {
        if (!seen.has(dep)) {
          seen.add(dep);
          result.missing.push([dep, top]);
          result.events.push('missing');
        }
      } else {
        state.set(dep, ON_PATH);
        path.push(dep);
        nexts.push(0);
      }
    }
  }
  return result;
}

/** The install order of `root` alone: the walk's prefix up to the root (empty when it was not walked). */
function closure(result, root) {
  const at = result.order.indexOf(root);
  return at < 0 ? [] : result.order.slice(0, at + 1);
}

module.exports = { walk, closure };
""",
    "src/problems.js": """'use strict';
// What is wrong with a walk, as the lines the reports print.

const { ITEM, firstKind, reportMissing } = require('./rules');

const cycleText = (loop) => [...loop, loop[0]].join(' -> ');
const missingNames = (result) => reportMissing(result.missing.map(([name]) => name));

/** The one error line of an install-order report, or null when nothing is wrong. */
function errorLine(result) {
  if (!result.cycles.length && !result.missing.length) return null;
  if (firstKind(result) === 'cycle') return `error: cycle: ${cycleText(result.cycles[0])}`;
  return `error: missing ${ITEM}s: ${missingNames(result).join(', ')}`;
}

/** Every problem of a whole-map walk, one line each (no lines when nothing is wrong). */
function auditLines(result) {
  if (!result.cycles.length && !result.missing.length) return [];
  const neededBy = new Map(result.missing);
  const missing = missingNames(result).map((name) => `missing: ${name} (needed by ${neededBy.get(name)})`);
  const cycles = result.cycles.map((loop) => `cycle: ${cycleText(loop)}`);
  return firstKind(result) === 'cycle' ? [...cycles, ...missing] : [...missing, ...cycles];
}

module.exports = { errorLine, auditLines };
""",
    "src/reports.js": """'use strict';
// The six reports.

const { auditLines, errorLine } = require('./problems');
const rules = require('./rules');
const { closure, walk } = require('./walk');

function order(data, graph, root) {
  const result = walk(graph, rules.starts(graph, root));
  const error = errorLine(result);
  return error ? [error] : closure(result, root);
}

function stages(data, graph, root) {
  const result = walk(graph, rules.starts(graph, root));
  const error = errorLine(result);
  if (error) return [error];
  const names = closure(result, root);
  const stage = rules.place(names, graph);
  const lines = [];
  for (let number = 1; number <= stage.get(root); number += 1) {
    lines.push(`stage ${number}: ${names.filter((name) => stage.get(name) === number).join(', ')}`);
  }
  return lines;
}

function check(data, graph) {
  const lines = auditLines(walk(graph, rules.arrange([...graph.keys()])));
  return lines.length ? lines : [`ok: ${graph.size} ${rules.ITEM}s`];
}

function install(data, graph, root) {
  const installed = new Set(rules.namesIn(data.installed || []).map(rules.canonical));
  const result = walk(graph, rules.starts(graph, root), rules.leaves(installed, graph));
  const error = errorLine(result);
  if (error) return [error];
  const todo = closure(result, root).filter((name) => !installed.has(name));
  return todo.length ? todo : ['nothing to install'];
}

function why(data, graph, root) {
  const target = rules.canonical(data.target);
  const chain = rules.findChain(graph, root, target);
  return chain ? [rules.chainText(chain)] : [`${target} is not needed by ${root}`];
}

function impact(data, graph) {
  const target = rules.canonical(data.target);
  const hit = rules.dependents(graph, target);
  const keys = rules.arrange([...graph.keys()]);
  const listed = rules.REBUILD_ORDER ? walk(graph, keys).order : keys;
  const names = listed.filter((name) => hit.has(name) && name !== target);
  return names.length ? names : [`nothing depends on ${target}`];
}

const REPORTS = { order, stages, check, install, why, impact };
const NEEDS_ROOT = ['order', 'stages', 'install', 'why'];
const NEEDS_TARGET = ['why', 'impact'];

module.exports = { REPORTS, NEEDS_ROOT, NEEDS_TARGET };
""",
    "src/index.js": """'use strict';
// One request in, one report out; the request is checked field by field first.

const { buildGraph } = require('./graph');
const { NEEDS_ROOT, NEEDS_TARGET, REPORTS } = require('./reports');
const { isName } = require('./common');
const { canonical, namesIn } = require('./rules');

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNames = (v) => Array.isArray(v) && namesIn(v) !== null;

/** The first field that is not as documented, or null. */
function badField(data) {
  const { packages, op } = data;
  if (!isObject(packages) || !Object.entries(packages).every(([key, deps]) => isName(key) && isNames(deps))) {
    return 'packages';
  }
  if (NEEDS_ROOT.includes(op) && !isName(data.root)) return 'root';
  if (NEEDS_TARGET.includes(op) && !isName(data.target)) return 'target';
  if (op === 'install' && data.installed !== undefined && data.installed !== null && !isNames(data.installed)) {
    return 'installed';
  }
  return null;
}

function lines(data) {
  const { op } = data;
  if (typeof op !== 'string' || !Object.prototype.hasOwnProperty.call(REPORTS, op)) {
    return [typeof op === 'string' ? `error: unknown op: ${op}` : 'error: unknown op'];
  }
  const field = badField(data);
  if (field) return [`error: bad field: ${field}`];
  const graph = buildGraph(data.packages);
  const root = NEEDS_ROOT.includes(op) ? canonical(data.root) : null;
  if (root !== null && !graph.has(root)) return [`error: unknown root: ${data.root}`];
  return REPORTS[op](data, graph, root);
}

/** The whole output of one request (a JSON object with op, packages and what the op needs). */
function handle(data) {
  if (!isObject(data)) return 'error: unreadable input\\n';
  return `${lines(data).join('\\n')}\\n`;
}

module.exports = { handle };
""",
}


def golden_files_js(values: dict[str, str], item: str) -> dict[str, str]:
    """The JavaScript golden's ``src/`` files for the decisions' ``values``."""
    return {**CORE_JS, "src/rules.js": rules_module_js(values, item)}
