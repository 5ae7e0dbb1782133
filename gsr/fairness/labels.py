"""Document gender labels for the label-based measures and re-rankers, from one of three sources, named in every
output: a labels file (`docid<TAB>female|male|neutral`, e.g. Grep-BiasIR's ground truth), the intrinsic rule of
§4.2.5 (entity words and first names, Fig. 12) or the sign of a document's genderedness g(d) beyond a threshold.

g(d) here is the mean g(w) over all the document's in-vocabulary terms, without GSR's query-term exclusion, so a
document has one label for every query; g(d) > τ is female (g > 0 leans female, as in GSR), g(d) < −τ male, anything
else (and an undefined g(d)) neutral. A document without a label is neutral and counted as unlabelled, except where
the labels cover a whole collection: there a document without one is not in the collection, an error.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gsr.documents.base import DocumentSource
from gsr.documents.opening import DocumentTexts, iter_documents, open_documents
from gsr.errors import InputError
from gsr.infra.numeric import mean_or_nan
from gsr.io.fairness_sensitive import REPRESENTATIVE_WORDS, REPRESENTATIVE_WORDS_FILE
from gsr.io.files import read_text, text_lines
from gsr.io.msmarco_gender import MSMARCO_GENDER, WORDLIST_FILE, read_gender_wordlist
from gsr.text.analyzer import Analyzer
from gsr.text.intrinsic_gender import (
    FEMALE,
    LABELS,
    MALE,
    NEUTRAL,
    MentionWords,
    default_function_words,
    default_mention_words,
    first_names,
    intrinsic_gender,
    load_gendered_entities,
)

if TYPE_CHECKING:
    from gsr.documents.stats import GenderedDocuments

INTRINSIC, GENDEREDNESS = "intrinsic", "genderedness"
# the built-in gender word lists of entity-word counts (RaB/ARaB magnitudes, the intrinsic rule): §4.2.5's Appendix B
# (the default), Rekabsaz & Schedl's wordlist_genderspecific.txt and Rekabsaz, Kopeinik & Schedl's
# wordlist_gender_representative.txt (FaiRR's default)
APPENDIX_B = "appendix-b"
GENDER_WORD_LISTS = (APPENDIX_B, MSMARCO_GENDER, REPRESENTATIVE_WORDS)


class LabelSourceError(InputError):
    """Labels that cannot be read or used; the message names the file and line, or the document and query.

    Example:
        >>> try:
        ...     DocumentLabels({"d1": "woman"}, "example")
        ... except LabelSourceError as err:
        ...     print(err)
        example: document d1 has label 'woman' (expected female, male, neutral)
    """


@dataclass
class DocumentLabels:
    """Gender labels by document id and the source they come from ('file:PATH', 'intrinsic', 'genderedness:τ', ...).

    complete: the labels cover every document of a collection (intrinsic, genderedness): a run document without one
    is not in the collection, an error naming it. strict: a missing label is an error for a labels file too
    (otherwise it is neutral, counted in `unlabelled`).

    Args:
        labels: {docid: 'female' | 'male' | 'neutral'}.
        source: How outputs name the labels' source.
        complete: The labels cover every document of a collection.
        strict: A missing label is an error.
        details: What outputs report about the source besides its name.

    Raises:
        LabelSourceError: If a label is not female, male or neutral.

    Example:
        >>> labels = DocumentLabels({"d1": "female", "d2": "male", "d3": "male"}, "example")
        >>> labels.ranked(["d2", "d9"]), labels.collection_shares(["female", "male"])
        ((['male', 'neutral'], 1), {'female': Fraction(1, 3), 'male': Fraction(2, 3)})
    """

    labels: Mapping[str, str]
    source: str
    complete: bool = False
    strict: bool = False
    details: dict = field(default_factory=dict)
    _counts: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        for docid, label in self.labels.items():
            if label not in LABELS:
                raise LabelSourceError(
                    f"{self.source}: document {docid} has label {label!r} (expected {', '.join(LABELS)})"
                )

    def label(self, docid: str, qid: str | None = None) -> str | None:
        """The document's label; None (read as neutral) when it has none and missing labels are allowed.

        Args:
            docid: The document id.
            qid: The query it was retrieved for, named in the error.

        Returns:
            The label, or None.

        Raises:
            LabelSourceError: If the document has no label and the labels are complete or strict.
        """
        label = self.labels.get(docid)
        if label is None and (self.complete or self.strict):
            where = f" (retrieved for query {qid})" if qid is not None else ""
            why = "is not in the labelled documents" if self.complete else "has no label (strict)"
            raise LabelSourceError(f"{self.source}: document {docid}{where} {why}")
        return label

    def ranked(self, docids: Iterable[str], qid: str | None = None) -> tuple[list[str], int]:
        """(labels of `docids` in order, missing ones as neutral; how many were missing).

        Args:
            docids: The ranked document ids.
            qid: The query they were retrieved for, named in errors.

        Returns:
            (the labels, the number missing).

        Raises:
            LabelSourceError: If a document has no label and the labels are complete or strict.
        """
        labels = [self.label(d, qid) for d in docids]
        return [NEUTRAL if label is None else label for label in labels], sum(1 for label in labels if label is None)

    def lenient(self, docid: str) -> str:
        """The label of a judged document, which may lie outside the collection: neutral when it has none.

        Args:
            docid: The document id.

        Returns:
            The label.
        """
        return self.labels.get(docid, NEUTRAL)

    def counts(self) -> dict[str, int]:
        """Documents per label; counted once (a re-ranker's collection target asks for every query).

        Returns:
            {label: documents}.
        """
        if self._counts is None:
            counted = Counter(self.labels.values())
            self._counts = {label: counted.get(label, 0) for label in LABELS}
        return dict(self._counts)

    def collection_shares(self, groups: Sequence[str]) -> dict[str, Fraction]:
        """The `collection` target: each group's share among the labelled documents in `groups` (exact).

        Args:
            groups: The groups, e.g. ('female', 'male').

        Returns:
            {group: share}.

        Raises:
            LabelSourceError: If no labelled document is in the groups.
        """
        counts = self.counts()
        total = sum(counts[g] for g in groups)
        if total == 0:
            raise LabelSourceError(
                f"{self.source}: no labelled document is {' or '.join(groups)}, so the collection target is undefined"
            )
        return {g: Fraction(counts[g], total) for g in groups}

    def to_dict(self) -> dict:
        """The labels' summary as outputs report it.

        Returns:
            {source, documents, each label's count, details}.
        """
        return {"source": self.source, "documents": len(self.labels), **self.counts(), **self.details}


def read_labels_file(path: str | os.PathLike, strict: bool = False) -> DocumentLabels:
    """Labels from a `docid<TAB>female|male|neutral` file (label case ignored), or the TSV `gsr label` writes; a
    malformed line, an unknown label or a document labelled twice differently is an error naming file:line.

    Args:
        path: The file.
        strict: A run document without a label is an error (otherwise neutral, counted as unlabelled).

    Returns:
        The labels, with source 'file:PATH'.

    Raises:
        LabelSourceError: If a line is malformed, a label unknown, or the file holds no label.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "labels.tsv")
        ...     _ = path.write_text("d1\\tFemale\\nd2\\tmale\\n")
        ...     read_labels_file(path).labels
        {'d1': 'female', 'd2': 'male'}
    """
    path = Path(path)
    labels: dict[str, str] = {}
    columns = 2  # gsr label's own TSV: a header 'id<TAB>label<TAB>…', its other columns ignored
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.rstrip("\r\n").split("\t")
        if not labels and columns == 2 and [p.strip() for p in parts[:2]] == ["id", "label"]:
            columns = len(parts)
            continue
        if len(parts) != columns or not parts[0].strip():
            expected = (
                "'docid<TAB>female|male|neutral'"
                if columns == 2
                else f"{columns} tab-separated columns, as the header 'id<TAB>label<TAB>…' of `gsr label`'s file says"
            )
            raise LabelSourceError(f"{path}:{lineno}: expected {expected}, not {len(parts)} column(s)")
        docid, label = parts[0].strip(), parts[1].strip().lower()
        if label not in LABELS:
            raise LabelSourceError(f"{path}:{lineno}: label {parts[1].strip()!r} is not female, male or neutral")
        if labels.get(docid, label) != label:
            raise LabelSourceError(f"{path}:{lineno}: document {docid} is labelled {labels[docid]} and {label}")
        labels[docid] = label
    if not labels:
        raise LabelSourceError(f"{path}: no labels in this file")
    return DocumentLabels(labels, f"file:{path}", strict=strict)


def intrinsic_labels(documents: DocumentTexts, words: MentionWords | None = None) -> DocumentLabels:
    """§4.2.5's intrinsic gender (gsr.text.intrinsic_gender.intrinsic_gender) of every document of `documents` (a
    path, a mapping or (docid, text) pairs).

    Args:
        documents: The documents.
        words: The entity words and first names (default: default_mention_words()).

    Returns:
        The labels of every document (complete), with source 'intrinsic'.

    Example:
        >>> intrinsic_labels({"d1": "She is a mother of two.", "d2": "The engine runs."}).labels
        {'d1': 'female', 'd2': 'neutral'}
    """
    words = words or default_mention_words()
    labels = {docid: intrinsic_gender(text, words).label for docid, text in iter_documents(documents)}
    return DocumentLabels(labels, INTRINSIC, complete=True, details={"first_names": words.names_source})


def document_genderedness(gendered: GenderedDocuments) -> dict[str, float]:
    """g(d) of every document of a gsr.documents.stats.GenderedDocuments: the mean g(w) over all its in-vocabulary
    terms (no query-term exclusion); NaN where it has none."""
    values = mean_or_nan(gendered.doc_sum, gendered.doc_count)
    return dict(zip(gendered.stats.docids, values.tolist()))


def genderedness_label(value: float, threshold: float) -> str:
    """female when g(d) > τ, male when g(d) < −τ, neutral otherwise (NaN included)."""
    return FEMALE if value > threshold else MALE if value < -threshold else NEUTRAL


def genderedness_labels(gendered: GenderedDocuments, threshold: float) -> DocumentLabels:
    """Every document labelled by the sign of g(d) beyond `threshold` τ ≥ 0 (no default: its scale depends on the
    embedding and the text handling).

    Args:
        gendered: The collection's per-document sums under one lexicon.
        threshold: τ ≥ 0.

    Returns:
        The labels of every document (complete), with source 'genderedness:τ'.

    Raises:
        LabelSourceError: If `threshold` is not a number ≥ 0.

    Example:
        >>> lexicon = GenderLexicon.from_mapping({"she": 0.5, "he": -0.5, "nurse": 0.25})
        >>> documents = DocumentStats.build([("d1", "she"), ("d2", "he nurse"), ("d3", "data")], n_jobs=1)
        >>> genderedness_labels(documents.gendered(lexicon), 0.1).labels
        {'d1': 'female', 'd2': 'male', 'd3': 'neutral'}
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold >= 0:
        raise LabelSourceError(f"the genderedness threshold must be a number ≥ 0, not {threshold!r}")
    labels = {d: genderedness_label(g, threshold) for d, g in document_genderedness(gendered).items()}
    return DocumentLabels(
        labels,
        f"{GENDEREDNESS}:{threshold:g}",
        complete=True,
        details={"lexicon": getattr(gendered.lexicon, "name", None)},
    )


def parse_label_source(text: str) -> tuple[str, Any]:
    """('intrinsic', None), ('genderedness', τ) for 'genderedness:τ', or ('file', path) for anything else."""
    if text == INTRINSIC:
        return INTRINSIC, None
    if text == GENDEREDNESS or text.startswith(GENDEREDNESS + ":"):
        value = text.partition(":")[2]
        try:
            threshold = float(value)
        except ValueError:
            threshold = -1.0
        if not threshold >= 0:
            raise LabelSourceError(
                f"labels {text!r}: the genderedness source needs a threshold τ ≥ 0, e.g. "
                "'genderedness:0.02' (it has no default: its scale depends on the embedding)"
            )
        return GENDEREDNESS, threshold
    return "file", text[len("file:") :] if text.startswith("file:") else text  # file:PATH, as configs write it


def gender_words(words: str | os.PathLike | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """(female, male) words of a gender word list: None or 'appendix-b' (§4.2.5's Appendix B entity words, the
    default), 'msmarco-gender' (Rekabsaz & Schedl's 32 + 32 gender-specific words), 'gender-representative'
    (Rekabsaz, Kopeinik & Schedl's 163 + 163 words), or a file: JSON {"female": [...], "male": [...]} or 'word,f' /
    'word,m' lines (told apart by a leading '{')."""
    if words is None or words == APPENDIX_B:
        return load_gendered_entities(None)
    if words == MSMARCO_GENDER:
        return read_gender_wordlist(WORDLIST_FILE)
    if words == REPRESENTATIVE_WORDS:
        return read_gender_wordlist(REPRESENTATIVE_WORDS_FILE)
    path = Path(words)
    if path.suffix.lower() == ".json" or read_text(path).lstrip().startswith("{"):
        return load_gendered_entities(path)
    return read_gender_wordlist(path)


def gender_words_name(words: str | os.PathLike | None = None) -> str:
    """How outputs name a gender word list: 'appendix-b', 'msmarco-gender', 'gender-representative' or 'file:PATH'."""
    if words is None or words in GENDER_WORD_LISTS:
        return str(words or APPENDIX_B)
    return f"file:{words}"


def mention_words(words: str | os.PathLike | None = None, names: str = "nltk") -> MentionWords:
    """§4.2.5's intrinsic rule's lists with the entity words of `words` (see gender_words): default_mention_words()
    for None / 'appendix-b'."""
    if words is None or words == APPENDIX_B:
        return default_mention_words(names=names)
    female_entities, male_entities = gender_words(words)
    female_names, male_names, source = first_names(names)
    return MentionWords(female_entities, male_entities, female_names, male_names, default_function_words(), source)


def gendered_word_counts(
    documents: DocumentTexts, entities: str | os.PathLike | None = None, wanted: set[str] | None = None
) -> dict[str, tuple[int, int]]:
    """(female, male) counts of a gender word list's words (`entities`, see gender_words: Appendix B's entity words by
    default, 'msmarco-gender' for Rekabsaz & Schedl's own list; no first names) per document (of `wanted` only, when
    given), over lowercased word tokens without stop-word removal: the counts Rekabsaz & Schedl's RaB turns into
    gender magnitudes.

    Args:
        documents: The documents (a path, a mapping, (docid, text) pairs).
        entities: The gender word list (None: Appendix B).
        wanted: The documents counted (default: every one).

    Returns:
        {docid: (female count, male count)}.

    Raises:
        InputError: If the documents or the word list cannot be read.

    Example:
        >>> gendered_word_counts({"d1": "She met her mother and her aunt.", "d2": "He left."})
        {'d1': (5, 0), 'd2': (0, 1)}
    """
    female, male = gender_words(entities)
    analyzer = Analyzer(stopwords=frozenset())
    if wanted is not None and isinstance(documents, (str, os.PathLike, DocumentSource)):
        documents = open_documents(documents).texts(wanted)  # only those documents are read, not the collection
    counts = {}
    for docid, text in iter_documents(documents):
        if wanted is not None and docid not in wanted:
            continue
        tokens = analyzer.tokens(text or "")
        counts[docid] = (sum(1 for t in tokens if t in female), sum(1 for t in tokens if t in male))
    return counts
