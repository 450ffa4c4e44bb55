const firstKind = (result) => (result.cycles.length ? 'cycle' : 'missing');
