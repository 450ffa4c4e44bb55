def chain_text(chain):
    return " <- ".join(reversed(chain))
