'use strict';
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
