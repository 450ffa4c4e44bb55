const starts = (graph, root) => [root, ...arrange([...graph.keys()])];
