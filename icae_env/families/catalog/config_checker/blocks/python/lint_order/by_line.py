def lint_order(issues):
    return sorted(issues, key=lambda issue: issue.line)
