"""Word embeddings trained on a collection: word2vec and fastText (embeddings.training). Loading embedding files
moved into the measure's package, gsr.vectors; the gender direction and g(w) (Eq. 1) are gsr.lexicon's.

`from embeddings import load_embedding`, which the README's Python example used, still works through gsr-bench 0.3
(it goes away in 0.4), with a DeprecationWarning: write `GenderLexicon.from_embedding("glove-6b-50d")`, or `from
gsr.vectors import load_embedding` for the vectors themselves."""

from __future__ import annotations

import warnings


def __getattr__(name: str):
    if name == "load_embedding":
        warnings.warn(
            "embeddings.load_embedding is deprecated and goes away in gsr-bench 0.4: give the embedding to "
            "GenderLexicon.from_embedding (a name like 'glove-6b-50d', a file or vectors), or import load_embedding "
            "from gsr.vectors",
            DeprecationWarning,
            stacklevel=2,
        )
        from gsr.vectors.loading import load_embedding

        return load_embedding
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
