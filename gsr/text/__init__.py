"""Text as GSR reads it: tokens, stop lists that keep the gendered pronouns, query-term exclusion (`analyzer`);
NLTK's word lists read offline (`corpora`); and the intrinsic gender of a document from the gendered entities and
first names it mentions, §4.2.5 (`intrinsic_gender`)."""

from gsr.settings import DEFAULT_EXCLUSION, EXCLUSION_MODES, STOP_LISTS
from gsr.text.analyzer import GENDERED_KEEP_WORDS, Analyzer, default_analyzer, read_stopwords, stopwords_of

__all__ = [
    "DEFAULT_EXCLUSION",
    "EXCLUSION_MODES",
    "GENDERED_KEEP_WORDS",
    "STOP_LISTS",
    "Analyzer",
    "default_analyzer",
    "read_stopwords",
    "stopwords_of",
]
