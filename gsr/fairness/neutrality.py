"""The inputs of FaiRR's document neutrality (gsr.fairness.fairr.document_neutrality): each group's representative
words, and how often they occur in each document (mag_g(d)), counted once per collection version, word list and
tokenisation for the documents a measurement needs, and cached.

Tokens: 'whitespace' (default) is the reference code's (`doctext.lower().split(' ')` in calc_documents_neutrality.py):
the text lowercased and split at whitespace, punctuation kept on the tokens ('she,' is not 'she'); 'words' is the
project's analyzer without stop-word removal (lowercased runs of letters, as RaB's counts), which finds 'she,' too.
"""

from __future__ import annotations

import collections
import functools
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from gsr.documents.base import DocumentListing, DocumentSource, ListedSource
from gsr.documents.opening import iter_documents, open_documents
from gsr.errors import InputError
from gsr.fairness.ascii_counts import AsciiWords
from gsr.fairness.fairr_options import TOKENISATIONS
from gsr.infra import logs
from gsr.infra.digests import content_key, fast_digest_of_bytes
from gsr.infra.hash_index import HashIndex
from gsr.infra.parallel import document_shards, map_in_processes
from gsr.infra.progress import progress
from gsr.infra.store import cache_dir, cached_folder
from gsr.io.fairness_sensitive import REPRESENTATIVE_WORDS, REPRESENTATIVE_WORDS_FILE
from gsr.io.files import read_text, text_lines

log = logs.get("fairness")

COUNTS_FORMAT = 2  # bump when the cached counts change for the same key
SHARD = 20_000  # documents counted per shard
LOOKUP_BLOCK = 1 << 16  # ids hashed and looked up at a time
SCAN_BLOCK = 1 << 18  # ids of a collection's listing searched for wanted documents at a time
PARALLEL_FROM = 100_000  # fewer documents are counted in this process (starting workers costs more than it saves)


class GroupWordsError(InputError):
    """A representative-word list that cannot be used; the message names the file and line.

    Example:
        >>> try:
        ...     GroupWords({"f": frozenset({"she"})}, "example")
        ... except GroupWordsError as err:
        ...     print(err)
        example: a word list needs at least two groups, not f
    """


@dataclass(frozen=True)
class GroupWords:
    """Each group's representative words V_g (lowercased), in the order of the groups' shares, and where they come
    from ('gender-representative', 'appendix-b', 'msmarco-gender' or 'file:PATH').

    Args:
        words: {group: its words}.
        source: How outputs name the list.

    Raises:
        GroupWordsError: If there are fewer than two groups.

    Example:
        >>> GroupWords({"f": frozenset({"she"}), "m": frozenset({"he"})}, "example").groups
        ('f', 'm')
    """

    words: Mapping[str, frozenset[str]]
    source: str

    def __post_init__(self):
        if len(self.words) < 2:
            raise GroupWordsError(f"{self.source}: a word list needs at least two groups, not {', '.join(self.words)}")

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups, in order."""
        return tuple(self.words)

    def key(self) -> str:
        """A key naming the words of every group (it names cache entries).

        Returns:
            The key.
        """
        return content_key([(g, sorted(w)) for g, w in self.words.items()])

    def sizes(self) -> dict[str, int]:
        """How many words each group has.

        Returns:
            {group: words}.
        """
        return {g: len(w) for g, w in self.words.items()}


def read_group_words(path: str | os.PathLike, groups: Sequence[str] = ("f", "m")) -> GroupWords:
    """The representative words of a 'word,GROUP' list (the reference's wordlist_gender_representative.txt form: one
    word and its group a line, e.g. 'she,f'), words lowercased as the reference reads them; blank lines are skipped.
    A line without exactly one ',', an empty word, a group not in `groups`, or a word listed under two groups is an
    error naming file:line.

    Args:
        path: The list.
        groups: The groups the list may name (the keys of the shares), in order.

    Returns:
        The words of every group (a group without words has none).

    Raises:
        GroupWordsError: If a line is malformed or the file holds no word.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "words.txt")
        ...     _ = path.write_text("she,f\\nHer,f\\nhe,m\\n")
        ...     words = read_group_words(path)
        >>> words.sizes(), sorted(words.words["f"])
        ({'f': 2, 'm': 1}, ['her', 'she'])
    """
    path = Path(path)
    words: dict[str, set[str]] = {g: set() for g in groups}
    group_of: dict[str, str] = {}
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.strip().split(",")
        if len(parts) != 2 or not parts[0].strip():
            raise GroupWordsError(f"{path}:{lineno}: expected 'word,GROUP' (e.g. 'she,f'), not {line.strip()!r}")
        word, group = parts[0].strip().lower(), parts[1].strip()
        if group not in words:
            raise GroupWordsError(
                f"{path}:{lineno}: unknown group {group!r} (the groups are {', '.join(groups)}; their shares name them)"
            )
        if group_of.setdefault(word, group) != group:
            raise GroupWordsError(f"{path}:{lineno}: {word!r} is listed under groups {group_of[word]} and {group}")
        words[group].add(word)
    if not group_of:
        raise GroupWordsError(f"{path}: no words in this file")
    return GroupWords({g: frozenset(w) for g, w in words.items()}, f"file:{path}")


def group_words(source: str | os.PathLike | None = None, groups: Sequence[str] = ("f", "m")) -> GroupWords:
    """The representative words FaiRR counts: None or 'gender-representative' (the paper's list, shipped), a
    built-in list of gsr.fairness.labels.gender_words ('appendix-b', 'msmarco-gender': female as 'f', male as 'm'),
    a JSON {"female": [...], "male": [...]} file (read as gender_words reads it), or a 'word,GROUP' file.

    Args:
        source: The list.
        groups: The groups of the shares, in order.

    Returns:
        The words of every group.

    Raises:
        GroupWordsError: If the list cannot be read, or a built-in two-gender list meets other groups.

    Example:
        >>> group_words("msmarco-gender").sizes()
        {'f': 32, 'm': 32}
    """
    from gsr.fairness.labels import APPENDIX_B, gender_words
    from gsr.io.msmarco_gender import MSMARCO_GENDER

    if source is None or source == REPRESENTATIVE_WORDS:
        return replace_source(read_group_words(REPRESENTATIVE_WORDS_FILE, groups), REPRESENTATIVE_WORDS)
    path = Path(source)
    two_genders = source in (APPENDIX_B, MSMARCO_GENDER) or (
        path.suffix.lower() == ".json" or read_text(path).lstrip().startswith("{")
    )
    if not two_genders:
        return read_group_words(path, groups)
    if sorted(groups) != ["f", "m"]:
        raise GroupWordsError(
            f"{source}: a list of female and male words needs the groups f, m, not {', '.join(groups)}"
        )
    female, male = gender_words(source)
    name = str(source) if source in (APPENDIX_B, MSMARCO_GENDER) else f"file:{source}"
    by_group = {"f": frozenset(female), "m": frozenset(male)}
    return GroupWords({g: by_group[g] for g in groups}, name)


def replace_source(words: GroupWords, source: str) -> GroupWords:
    """The same words under another name."""
    return GroupWords(words.words, source)


# ----------------------------------------------------------------------------------------------- counting


def text_tokens(text: str, tokens: str = "whitespace") -> list[str]:
    """The tokens FaiRR counts in a text: 'whitespace' the reference's (lowercased, split at whitespace), 'words' the
    analyzer's (lowercased runs of letters, no stop list).

    Example:
        >>> text_tokens("She met her. SHE"), text_tokens("She met her. SHE", "words")
        (['she', 'met', 'her.', 'she'], ['she', 'met', 'her', 'she'])
    """
    if tokens == "whitespace":
        return text.lower().split()
    if tokens == "words":
        return _word_analyzer().tokens(text)
    raise InputError(f"tokens must be one of {', '.join(TOKENISATIONS)}, not {tokens!r}")


@functools.cache
def _word_analyzer():
    from gsr.text.analyzer import Analyzer

    return Analyzer(stopwords=frozenset())


def count_shard(shard: list[tuple[str, str]], words: GroupWords, tokens: str) -> tuple[np.ndarray, np.ndarray]:
    """mag_g(d) of every document of a shard: (their ids as UTF-8 bytes, an int64 array of one row per document, one
    column per group); a document without text counts nothing."""
    return id_bytes([docid for docid, _ in shard]), count_texts([text or "" for _, text in shard], words, tokens)


def count_texts(texts: Sequence[str], words: GroupWords, tokens: str = "whitespace") -> np.ndarray:
    """mag_g(d) of each text (one row per text, one column per group): with whitespace tokens, the ASCII texts in
    numpy (gsr.fairness.ascii_counts: the same counts), the others token by token (plain_counts).

    Example:
        >>> count_texts(["She and he", "Ｓhe, her"], group_words()).tolist()
        [[1, 1], [1, 0]]
    """
    sets = [words.words[g] for g in words.groups]
    table = _ascii_words(tuple(sets)) if tokens == "whitespace" else None
    if table is None:
        return plain_counts(texts, sets, tokens)
    counts = np.zeros((len(texts), len(sets)), dtype=np.int64)
    ascii_rows = np.flatnonzero(np.fromiter(map(str.isascii, texts), dtype=bool, count=len(texts)))
    chosen = [texts[row] for row in ascii_rows.tolist()]
    counted, skipped = table.count("\n".join(chosen).encode("ascii"), _lengths(chosen))
    counts[ascii_rows] = counted
    rest = np.ones(len(texts), dtype=bool)
    rest[ascii_rows[~skipped]] = False
    rows = np.flatnonzero(rest)
    counts[rows] = plain_counts([texts[row] for row in rows.tolist()], sets, tokens)
    return counts


def plain_counts(texts: Sequence[str], sets: Sequence[frozenset[str]], tokens: str) -> np.ndarray:
    """mag_g(d) of each text token by token (text_tokens): one row per text, one column per group (of `sets`)."""
    representative = frozenset().union(*sets).__contains__
    counts = np.zeros((len(texts), len(sets)), dtype=np.int64)
    for row, text in enumerate(texts):
        # one pass in C keeps the few representative tokens; only they are counted per group
        found = list(filter(representative, text_tokens(text, tokens)))
        if found:
            counts[row] = [sum(map(group.__contains__, found)) for group in sets]
    return counts


@functools.lru_cache(maxsize=8)
def _ascii_words(sets: tuple[frozenset[str], ...]) -> AsciiWords | None:
    """The packed table of a word list, built once per process."""
    return AsciiWords.of(sets)


def _lengths(texts: Sequence[bytes | str]) -> np.ndarray:
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def id_hashes(docids: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each document id (UTF-8 bytes, FNV-1a over 8-byte words with a shift), the same whatever the
    array's width: the zero words a wider array pads an id with leave its hash as it is (no id holds a NUL)."""
    width = -(-max(docids.dtype.itemsize, 1) // 8) * 8
    words = np.ascontiguousarray(docids.astype(f"S{width}")).view(np.uint64).reshape(len(docids), width // 8)
    hashed = np.full(len(docids), 0xCBF29CE484222325, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in words.T:
            mixed = (hashed ^ column) * np.uint64(0x100000001B3)
            mixed ^= mixed >> np.uint64(29)
            hashed = np.where(column != 0, mixed, hashed)
    return hashed


@dataclass
class IdTable:
    """Distinct document ids (UTF-8 bytes) and the row of each: looked up by their 64-bit hashes (`keys`, sorted,
    the ids in that order), so that 10⁶ ids are found without sorting strings; where two distinct ids share a hash
    (about n² / 2⁶⁵, never seen), by the ids themselves (sorted, `keys` None).

    Args:
        ids: The distinct ids, in row order.
        keys: Their hashes, sorted, or None.

    Example:
        >>> table = IdTable.of([b"d2", b"d1", b"d2"])
        >>> sorted(table.ids.tolist()), table.ids[table.rows_of(np.array([b"d1"]))].tolist()
        ([b'd1', b'd2'], [b'd1'])
    """

    ids: np.ndarray
    keys: np.ndarray | None
    index: HashIndex | None = field(default=None, repr=False, compare=False)  # built by the first look-up

    @classmethod
    def of(cls, docids) -> IdTable:
        """The table of the distinct ids among `docids`.

        Args:
            docids (object): Document ids (str or UTF-8 bytes).

        Returns:
            The table.
        """
        return cls.indexed(docids)[0]

    @classmethod
    def indexed(cls, docids) -> tuple[IdTable, np.ndarray]:
        """The table of the distinct ids among `docids`, and the row of each of `docids` (no lookup needed).

        Args:
            docids (object): Document ids (str or UTF-8 bytes).

        Returns:
            (the table, the rows).
        """
        docids = id_bytes(docids)
        hashes = id_hashes(docids)
        order = np.argsort(hashes, kind="stable")
        hashes, ordered = hashes[order], docids[order]
        starts = np.concatenate(([True], hashes[1:] != hashes[:-1])) if len(hashes) else np.zeros(0, dtype=bool)
        first = np.flatnonzero(starts)
        repeated = np.flatnonzero(~starts)  # an id whose hash the one before it has: it must be the same id
        if (ordered[repeated] != ordered[repeated - 1]).any():
            ids, rows = np.unique(docids, return_inverse=True)  # two ids under one hash: look them up as strings
            return cls(ids, None), rows
        rows = np.empty(len(docids), dtype=np.int64)
        rows[order] = np.cumsum(starts) - 1
        return cls(ordered[first], hashes[first]), rows

    def rows_of(self, docids: np.ndarray) -> np.ndarray:
        """The row of each of `docids` (every one among `ids`).

        Args:
            docids: Document ids as UTF-8 bytes.

        Returns:
            Their rows.
        """
        if self.keys is None:
            return np.searchsorted(self.ids, docids)
        return self._index(self.keys).find(id_hashes(docids))

    def lookup(self, docids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of `docids` are in the table, and their rows (meaningless where not).

        Args:
            docids: Document ids as UTF-8 bytes.

        Returns:
            (found, rows).
        """
        if not len(self.ids):
            return np.zeros(len(docids), dtype=bool), np.zeros(len(docids), dtype=np.int64)
        if self.keys is None:
            at = np.minimum(np.searchsorted(self.ids, docids), len(self.ids) - 1)
            return self.ids[at] == docids, at
        # hashed and found in a hash index: several times faster than np.isin or a binary search on 10⁷ ids; a block
        # at a time, so that the intermediate arrays stay in the processor's cache
        index = self._index(self.keys)
        found = np.zeros(len(docids), dtype=bool)
        rows = np.zeros(len(docids), dtype=np.int64)
        for start in range(0, len(docids), LOOKUP_BLOCK):
            block = docids[start : start + LOOKUP_BLOCK]
            at = index.find(id_hashes(block))
            hit = np.flatnonzero(at >= 0)
            found[start + hit] = self.ids[at[hit]] == block[hit]  # an equal hash is no proof
            rows[start + hit] = at[hit]
        return found, rows

    def positions_in(self, others: np.ndarray) -> np.ndarray:
        """The positions, ascending, of the `others` ids (e.g. a collection's listing) that are in the table.

        Args:
            others: Document ids as UTF-8 bytes.

        Returns:
            Their positions.
        """
        return np.flatnonzero(self.lookup(others)[0])

    def _index(self, keys: np.ndarray) -> HashIndex:
        if self.index is None:
            self.index = HashIndex(keys)
        return self.index


@dataclass
class GroupCounts:
    """mag_g(d) of some documents: `table` their ids, `counts` one row per id, `found` whether the collection holds
    it (a missing document counts nothing).

    Args:
        table: The document ids and their rows.
        counts: Their counts, one column per group.
        found: Whether each is in the collection.

    Example:
        >>> counts = count_documents({"d1": "She and he", "d2": "He"}, [b"d1", b"d2", b"d9"], group_words())
        >>> rows = counts.rows_of(np.array([b"d1", b"d2", b"d9"]))
        >>> counts.counts[rows].tolist(), counts.found[rows].tolist()
        ([[1, 1], [0, 1], [0, 0]], [True, True, False])
    """

    table: IdTable
    counts: np.ndarray
    found: np.ndarray
    wanted: np.ndarray | None = None  # count_documents: the row of each id it was asked for, in its order

    def rows_of(self, docids: np.ndarray) -> np.ndarray:
        """The row of each of `docids` (UTF-8 bytes, every one among the table's).

        Args:
            docids: The ids.

        Returns:
            Their rows.
        """
        return self.table.rows_of(docids)

    def save(self, folder: Path) -> None:
        np.save(folder / "ids.npy", self.table.ids)
        np.save(folder / "counts.npy", self.counts)
        np.save(folder / "found.npy", self.found)
        if self.table.keys is not None:
            np.save(folder / "keys.npy", self.table.keys)

    @classmethod
    def load(cls, folder: Path) -> GroupCounts:
        keys = np.load(folder / "keys.npy") if (folder / "keys.npy").exists() else None
        table = IdTable(np.load(folder / "ids.npy"), keys)
        return cls(table, np.load(folder / "counts.npy"), np.load(folder / "found.npy"))


def _counted(texts: Iterable[tuple[str, str]], table: IdTable, words: GroupWords, tokens: str, n_jobs: int):
    """(table rows, counts) of the documents of `texts`, shard by shard (counted in processes for many documents)."""
    count = functools.partial(count_shard, words=words, tokens=tokens)
    shards = document_shards(texts, SHARD)
    total = len(table.ids)
    parts = map_in_processes(count, shards, n_jobs) if n_jobs > 1 and total >= PARALLEL_FROM else map(count, shards)
    yield from _progress(((table.rows_of(ids), counts) for ids, counts in parts), total)


def _progress(parts: Iterable[tuple[np.ndarray, np.ndarray]], total: int):
    with progress(total=total, desc="representative words", unit="doc", unit_scale=True) as bar:
        for rows, counts in parts:
            yield rows, counts
            bar.update(len(rows))


def read_and_count(place: tuple, source: ListedSource, words: GroupWords, tokens: str) -> np.ndarray:
    """The counts of the documents of a listed source at `place` = (file number, their ids, ascending offsets, where
    each one's line ends at the latest), in that order: a worker reads its own shard, so reading is spread over the
    processes as the counting is. With whitespace tokens, the texts the file gives as bytes (plain TSV:
    ListedSource.text_bytes_at) are counted in numpy as they are; the others are read and counted as text."""
    index, ids, offsets, ends = place
    table = _ascii_words(tuple(words.words[g] for g in words.groups)) if tokens == "whitespace" else None
    raw = source.text_bytes_at(index, ids, offsets, ends) if table is not None else None
    if table is None or raw is None:
        return count_shard(list(source.read_at(index, source.files[index], offsets)), words, tokens)[1]
    texts, read = raw
    rows = np.flatnonzero(read)
    counted, skipped = table.count(b"\n".join(texts), _lengths(texts))
    counts = np.zeros((len(read), len(words.groups)), dtype=np.int64)
    counts[rows] = counted
    rest = np.ones(len(read), dtype=bool)
    rest[rows[~skipped]] = False  # not ASCII, or a line only read_at parses: read as text (its errors raised there)
    counts[rest] = count_shard(list(source.read_at(index, source.files[index], offsets[rest])), words, tokens)[1]
    return counts


def _read_listed(source: ListedSource, table: IdTable, words: GroupWords, tokens: str, n_jobs: int):
    """(table rows, counts) of the `table` documents of a listed source, shard by shard, read and counted by `n_jobs`
    processes (1: this one), each given shards of (file, ids, offsets, line ends) in file order as the listing is
    searched (the workers start on the first shards while this process looks for the next ones)."""
    rows_of_places: collections.deque[np.ndarray] = collections.deque()

    def places() -> Iterator[tuple]:
        for rows, place in _places(source.listing(), table):
            rows_of_places.append(rows)
            yield place

    work = functools.partial(read_and_count, source=source, words=words, tokens=tokens)
    parts = map_in_processes(work, places(), n_jobs) if n_jobs > 1 else map(work, places())
    # the bar's total is every wanted id: one the collection lacks is never counted
    yield from _progress(((rows_of_places.popleft(), counts) for counts in parts), len(table.ids))


def _places(listing: DocumentListing, table: IdTable) -> Iterator[tuple[np.ndarray, tuple]]:
    """(table rows, place) of the `table` documents a listing holds, up to SHARD documents of one file at a time in
    file order, the listing searched SCAN_BLOCK ids at a time as places are taken. A place is (file number, the ids,
    their offsets, where each one's line ends at the latest: the next listed document's offset, -1 for the file's
    end)."""
    ids = np.asarray(listing.ids)
    positions = rows = np.zeros(0, dtype=np.int64)
    for start in range(0, len(ids), SCAN_BLOCK):
        found, at = table.lookup(ids[start : start + SCAN_BLOCK])
        hit = np.flatnonzero(found)
        positions, rows = np.concatenate((positions, start + hit)), np.concatenate((rows, at[hit]))
        scanned = start + SCAN_BLOCK >= len(ids)
        while len(positions) >= SHARD or (scanned and len(positions)):
            files = np.asarray(listing.files[positions[:SHARD]])
            size = int(np.argmax(files != files[0])) or len(files)  # a shard holds one file's documents
            shard, positions, rows_now, rows = positions[:size], positions[size:], rows[:size], rows[size:]
            following = np.minimum(shard + 1, len(listing) - 1)
            same_file = (shard + 1 < len(listing)) & (np.asarray(listing.files[following]) == files[0])
            ends = np.where(same_file, np.asarray(listing.offsets[following]), -1)
            yield rows_now, (int(files[0]), ids[shard], np.asarray(listing.offsets[shard]), ends)


def count_documents(documents, wanted: np.ndarray, words: GroupWords, tokens: str = "whitespace", n_jobs=None):
    """GroupCounts of the `wanted` documents (unique ids as UTF-8 bytes) of `documents`: a path, 'irds:NAME' or a
    DocumentSource (only those documents are read, and the counts are cached under the collection's version, the
    words, the tokenisation and the ids) or a mapping / (docid, text) pairs (read whole, not cached).

    Args:
        documents (object): The documents.
        wanted: The ids whose counts are needed.
        words: The representative words.
        tokens: 'whitespace' or 'words'.
        n_jobs: Processes counting (default: every core; 1: none started).

    Returns:
        The counts, with the row of each of `wanted` (`wanted`).

    Raises:
        InputError: If the documents cannot be read.
    """
    if tokens not in TOKENISATIONS:
        raise InputError(f"tokens must be one of {', '.join(TOKENISATIONS)}, not {tokens!r}")
    table, rows = IdTable.indexed(wanted)
    ids = table.ids
    if not len(ids):  # nothing to read (an empty run): not even the collection's listing
        return GroupCounts(table, np.zeros((0, len(words.groups)), dtype=np.int64), np.zeros(0, dtype=bool), rows)
    n_jobs = n_jobs or os.cpu_count() or 1
    if not isinstance(documents, (str, os.PathLike, DocumentSource)):
        counted = _fill(table, _counted(_kept(iter_documents(documents), ids), table, words, tokens, 1), words)
        return replace(counted, wanted=rows)
    source = open_documents(documents)
    key = content_key(COUNTS_FORMAT, source.version(), words.key(), tokens, fast_digest_of_bytes(ids.tobytes()))
    built: list[GroupCounts] = []

    def build(staging: Path) -> None:
        if isinstance(source, ListedSource):
            counted = _read_listed(source, table, words, tokens, n_jobs if len(ids) >= PARALLEL_FROM else 1)
        else:
            counted = _counted(source.texts([d.decode("utf-8") for d in ids.tolist()]), table, words, tokens, n_jobs)
        built.append(_fill(table, counted, words))
        built[0].save(staging)

    folder, reused = cached_folder(cache_dir() / "document-group-counts" / key, build)
    if reused:
        log.info(
            "representative-word counts of %s documents of %s reused from %s", f"{len(ids):,}", source.name, folder
        )
    return replace(built[0] if built else GroupCounts.load(folder), wanted=rows)


def id_bytes(docids) -> np.ndarray:
    """Document ids as an array of UTF-8 bytes (an array of bytes as it is)."""
    if isinstance(docids, np.ndarray) and docids.dtype.kind == "S":
        return docids
    encoded = [d.encode("utf-8") if isinstance(d, str) else bytes(d) for d in docids]
    return np.array(encoded, dtype=bytes) if encoded else np.zeros(0, dtype="S1")


def _kept(texts: Iterable[tuple[str, str]], ids: np.ndarray) -> Iterable[tuple[str, str]]:
    wanted = {d.decode("utf-8") for d in ids.tolist()}
    return ((d, t) for d, t in texts if d in wanted)


def _fill(table: IdTable, counted: Iterable[tuple[np.ndarray, np.ndarray]], words: GroupWords) -> GroupCounts:
    """GroupCounts of the `table` ids from counted parts (table rows, counts)."""
    counts = np.zeros((len(table.ids), len(words.groups)), dtype=np.int64)
    found = np.zeros(len(table.ids), dtype=bool)
    for rows, part_counts in counted:
        counts[rows] = part_counts
        found[rows] = True
    return GroupCounts(table, counts, found)
