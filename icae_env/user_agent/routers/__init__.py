"""The shipped routers, numpy only (the router picks the records a question asks about, or none).

* :mod:`.lexical`: a fitted linear ranker over inverted indexes, and the answerability gate.
* :mod:`.distilled`: the lexical router plus cosines of the shipped static encoder.
* :mod:`.cascade` (the default): the distilled router, with the shipped cross-encoders re-checking unsure questions.

The opt-in routers, which need an extra or an endpoint, are in :mod:`icae_env.user_agent.optional`. Routers are
chosen by name from :data:`icae_env.registration.ROUTERS`.
"""
