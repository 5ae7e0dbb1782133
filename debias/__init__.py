"""Debiasing word embeddings: regular (hard) debiasing, Bolukbasi et al. 2016; strong debiasing, Prost et al. 2019."""

from debias.hard import (
    DebiasError,
    DebiasReport,
    HardDebias,
    StrongDebias,
    equalize_pair,
    neutralize,
    unit_normalised,
)
from debias.words import (
    DEFAULT_LISTS,
    LIST_SETS,
    WordListError,
    default_definitional_pairs,
    default_equalize_pairs,
    default_gender_specific,
    load_pair_list,
    load_word_list,
)

METHODS = {"regular": HardDebias, "strong": StrongDebias}

__all__ = [
    "DEFAULT_LISTS",
    "LIST_SETS",
    "METHODS",
    "DebiasError",
    "DebiasReport",
    "HardDebias",
    "StrongDebias",
    "WordListError",
    "default_definitional_pairs",
    "default_equalize_pairs",
    "default_gender_specific",
    "equalize_pair",
    "load_pair_list",
    "load_word_list",
    "neutralize",
    "unit_normalised",
]
