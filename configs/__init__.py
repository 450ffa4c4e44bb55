"""Run configurations shipped with icae-env (YAML files, loaded by :func:`icae_env.config.load_config`)."""
