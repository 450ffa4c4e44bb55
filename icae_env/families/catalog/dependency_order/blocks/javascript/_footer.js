module.exports = { ITEM, KEEP_SELF, REBUILD_ORDER, arrange, canonical, chainText, dependents, findChain, firstKind, leaves, namesIn, place, reportMissing, starts, startAt };
