"""Opt-in routers: each needs an extra or an endpoint, and no shipped module imports them.

* :mod:`.embedding` (``embedding``): sentence-transformers cosines (the ``embedding`` extra).
* :mod:`.hybrid` (``lexical-embedding``): the lexical ranker with the vector gate over those cosines.
* :mod:`.llm` (``llm``): an OpenAI-compatible chat-completions endpoint picks the records.
"""
