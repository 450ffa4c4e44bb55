function findChain(graph, root, target) {
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
