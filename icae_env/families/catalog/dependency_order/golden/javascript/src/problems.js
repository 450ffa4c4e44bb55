'use strict';
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
