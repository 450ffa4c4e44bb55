function dependents(graph, target) {
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
