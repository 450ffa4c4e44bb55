"""How the User Agent's shipped constants and models were fitted and evaluated (not part of the wheel).

Run from a source checkout's root (they read ``benchmarks/data`` and the built-in tasks):

* :mod:`.fits`: the lexical ranker's coefficients, the background, the answerability gate, a whole router per fold.
* :mod:`.gate_fit`: the gate's logistic fit and threshold calibration.
* :mod:`.encoder_distill`: distils all-MiniLM-L6-v2 into the static encoder
  (``python -m benchmarks.router_fit.encoder_distill``).
* :mod:`.cross_encoder_fit`: fine-tunes the cross-encoder ensemble (``python -m
benchmarks.router_fit.cross_encoder_fit``).
* :mod:`.labels`: hand-labelled questions and a router's precision on them.
* :mod:`.trigger_quality`: leave-one-trigger-out quality and off-topic rejection.
"""
