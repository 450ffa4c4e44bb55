"""The models that ship with the package, run in numpy (their weights are the ``.npz`` files beside them).

* :mod:`.static_encoder`: a static sentence encoder distilled from all-MiniLM-L6-v2 (microseconds per question).
* :mod:`.cross_encoder`: an ensemble of MiniLM cross-encoders that re-checks the questions the gate is unsure of.
* :mod:`.wordpiece`: BERT's uncased WordPiece tokenizer, as the cross-encoder reads text.
* :mod:`.logit_store`: cross-encoder logits remembered on disk, shared by the processes of a machine.

How the weights were fitted is not part of the package: see ``benchmarks/router_fit/`` in a source checkout.
"""
