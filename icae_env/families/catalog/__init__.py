"""The task families shipped with icae-env: one module, a YAML spec and golden building blocks per family."""
