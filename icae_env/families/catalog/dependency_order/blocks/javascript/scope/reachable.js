const starts = (graph, root) => [root];
