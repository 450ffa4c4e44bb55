const leaves = (installed, graph) => new Set([...installed].filter((name) => !graph.has(name)));
