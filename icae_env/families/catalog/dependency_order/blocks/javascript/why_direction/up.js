const chainText = (chain) => [...chain].reverse().join(' <- ');
