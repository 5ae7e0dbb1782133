"""Debiasing word embeddings: regular (hard) debiasing, Bolukbasi et al. 2016; strong debiasing, Prost et al. 2019."""

from gsr.infra.lazy import lazy_names, names_of

_LAZY = {
    **names_of(
        "debias.hard",
        "DebiasError",
        "DebiasReport",
        "HardDebias",
        "StrongDebias",
        "equalize_pair",
        "neutralize",
        "unit_normalised",
    ),
    **names_of(
        "debias.words",
        "DEFAULT_LISTS",
        "LIST_SETS",
        "WordListError",
        "default_definitional_pairs",
        "default_equalize_pairs",
        "default_gender_specific",
        "load_pair_list",
        "load_word_list",
    ),
    "METHODS": "debias.hard",
}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_names(__name__, _LAZY)
