"""What the shipped routers share: text normalisation, inverted indexes, word specificity, the answerability gate.

* :mod:`.text`: tokens, a light stemmer, programming synonyms, character n-grams, lead sentences.
* :mod:`.index`: numpy inverted indexes (IDF, TF-IDF rows, BM25).
* :mod:`.background`: how generic a word is, over a background of tasks.
* :mod:`.gate`: the answerability gate: whether the top-ranked record really answers the question.
* :mod:`.vectors` and :mod:`.vector_gate`: sentence-vector cosines of a level's documents and the gate that weighs them.
"""
