const firstKind = (result) => (result.missing.length ? 'missing' : 'cycle');
