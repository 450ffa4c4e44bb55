function dependents(graph, target) {
  return new Set([...graph].filter(([, deps]) => deps.includes(target)).map(([name]) => name));
}
