"""mag_g(d) of many ASCII documents at once, in numpy: the counts gsr.fairness.neutrality's whitespace tokens give
(`text.lower().split()`, each token looked up in each group's words), without a Python string per token.

Why by hand: FaiRR's first use at MS MARCO's size reads 1.3 M passages (70 M tokens), and making a Python string of
every token, which `str.split` does, was most of the counting time. No library at hand does it with the same
tokens: `re` with the words as one alternation is about 5 × slower than the split, pyarrow's string kernels (not a
core dependency) lowercase and split by Unicode rules of their own, and a multi-pattern matcher (Aho-Corasick) finds
the words inside tokens, not whole tokens. For ASCII text the reference's tokens are simple to reproduce exactly:
`str.lower` maps A-Z to a-z and nothing else, and `str.split` splits at the ASCII characters for which
`str.isspace` holds (the translation table below is taken from Python itself). A document holding any other byte (UTF-8
beyond ASCII, or NUL) is left to the caller, which counts it token by token as before.

Each token is found by the edges of the whitespace mask; a token can only be a word if its (first byte, last
byte, length) is a word's (a 1 MiB table: one token in ten passes on English text), and those are compared with the
words whole, as up to 64 bytes packed into 64-bit integers (a hash to find the candidate word, then every byte).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gsr.infra.hash_index import FIBONACCI, HashIndex

# str.split()'s ASCII separators (\t \n \v \f \r, \x1c-\x1f, space) become spaces and str.lower()'s ASCII letters
# lowercase letters; other ASCII bytes stay as they are, and bytes >= 0x80 (whose documents are skipped) become 0x7F
_SPACE = ord(" ")
_TRANSLATION = bytes((_SPACE if chr(c).isspace() else ord(chr(c).lower())) if c < 0x80 else 0x7F for c in range(256))
BLOCK = 1 << 19  # bytes of documents counted at a time (half a MiB measured fastest, 1 MiB up to a third slower)
MAX_WORD = 62  # longer words are not packed (a word list holding one is counted token by token)
_LENGTH_BITS = 6  # a token's length in the prefilter, capped at 63 (> MAX_WORD: no word that long)
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


@dataclass(frozen=True)
class AsciiWords:
    """The ASCII words of some groups, packed for counting whole tokens: `columns` each word's bytes as 64-bit
    integers (zero-padded), `lengths`, `index` the words by their hashes (gsr.infra.hash_index), `member` which
    groups hold each word, `prefilter` whether some word has a token's (first byte, last byte, length).

    Example:
        >>> table = AsciiWords.of([frozenset({"she", "her"}), frozenset({"he"})])
        >>> counts, skipped = table.count(b"She met HER, he said: he\\nno one", np.array([24, 6]))
        >>> counts.tolist(), skipped.tolist()
        ([[1, 2], [0, 0]], [False, False])
    """

    columns: np.ndarray
    lengths: np.ndarray
    index: HashIndex
    member: np.ndarray
    prefilter: np.ndarray

    @classmethod
    def of(cls, groups: Sequence[frozenset[str]]) -> AsciiWords | None:
        """The table of the groups' words, or None when it cannot count them: a word of more than MAX_WORD
        characters, or two words whose hashes collide (about 2⁻⁶⁴ a pair). Words that cannot be an ASCII token
        (empty, with whitespace or non-ASCII characters) are left out: no ASCII document holds them.

        Args:
            groups: Each group's words.

        Returns:
            The table, or None.
        """
        words = sorted({w for group in groups for w in group if w and w.isascii() and not any(c.isspace() for c in w)})
        if any(len(w) > MAX_WORD for w in words):
            return None
        width = max(8, -(-max(map(len, words), default=1) // 8) * 8)
        packed = np.zeros((len(words), width), dtype=np.uint8)
        for row, word in enumerate(words):
            packed[row, : len(word)] = np.frombuffer(word.encode("ascii"), dtype=np.uint8)
        columns = packed.view("<u8")
        lengths = np.array([len(w) for w in words], dtype=np.int64)
        keys = _hashes(columns.T, lengths)
        if len(np.unique(keys)) < len(keys):
            return None
        member = np.array([[w in group for group in groups] for w in words], dtype=np.int64).reshape(-1, len(groups))
        prefilter = np.zeros(1 << (14 + _LENGTH_BITS), dtype=bool)
        if len(words):
            prefilter[_prefilter_index(packed[:, 0], packed[np.arange(len(words)), lengths - 1], lengths)] = True
        return cls(columns, lengths, HashIndex(keys), member, prefilter)

    def count(self, joined: bytes, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """mag_g(d) of the documents of `joined`: document i is `lengths[i]` bytes, the documents joined by one
        byte of whitespace (b"\\n".join(texts)).

        Args:
            joined: The documents' bytes.
            lengths: Each document's length in bytes.

        Returns:
            (counts: one row per document, one column per group; skipped: the documents holding a byte that is not
            ASCII or is NUL, whose rows are 0 and which the caller counts itself).
        """
        n = len(lengths)
        counts = np.zeros((n, self.member.shape[1]), dtype=np.int64)
        skipped = np.zeros(n, dtype=bool)
        if not n:
            return counts, skipped
        ends = np.cumsum(np.asarray(lengths, dtype=np.int64) + 1)  # past each document's separator
        starts = ends - lengths - 1
        if not joined.isascii() or b"\0" in joined:  # both C scans of the bytes: NumPy only where one fails
            raw = np.frombuffer(joined, dtype=np.uint8)
            unusual = np.flatnonzero((raw - np.uint8(1)) >= 0x7F)  # NUL (wraps to 255) or a byte >= 0x80
            skipped[np.searchsorted(starts, unusual, side="right") - 1] = True
        if not len(self.lengths):
            return counts, skipped
        # BLOCK bytes of documents at a time: the arrays of a block stay in the processor's cache and are reused by
        # the allocator (a whole shard's were a third slower, in page faults and memory traffic)
        view, first = memoryview(joined), 0
        while first < n:
            past = max(first + 1, int(np.searchsorted(ends, starts[first] + BLOCK, side="right")))
            block = view[starts[first] : ends[past - 1] - 1]
            counts[first:past] = self._count_block(block, starts[first:past] - starts[first])
            first = past
        counts[skipped] = 0
        return counts, skipped

    def _count_block(self, block: memoryview, starts: np.ndarray) -> np.ndarray:
        """count's rows of the documents of `block`, which start at `starts` (joined by one byte of whitespace)."""
        width = 8 * self.columns.shape[1]
        # a space before the first document and after the last, and room for a word's width past any token start
        data = np.frombuffer(b"".join((b" ", block, b" " * (width + 8))).translate(_TRANSLATION), dtype=np.uint8)
        space = data == _SPACE
        # the last space before each token and each token's last byte, alternating
        edges = np.flatnonzero(space[1:] != space[:-1])
        before, last = edges[0::2], edges[1::2]
        size = last - before
        candidates = np.flatnonzero(self.prefilter[_prefilter_index(data[1:][before], data[last], size)])
        first, size = before[candidates] + 1, size[candidates]
        # every 8 bytes from each position, as little-endian integers (unaligned, overlapping views)
        windows = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
        tokens = [windows[first + 8 * j] & _MASKS[np.clip(size - 8 * j, 0, 8)] for j in range(self.columns.shape[1])]
        at = self.index.find(_hashes(tokens, size))  # a hash table: a binary search was 4 × slower
        found = at >= 0
        at, first, size, tokens = at[found], first[found], size[found], [column[found] for column in tokens]
        found = self.lengths[at] == size  # an equal hash is no proof: every byte is compared
        for j, column in enumerate(tokens):
            found &= self.columns[at, j] == column
        documents = np.searchsorted(starts + 1, first[found], side="right") - 1  # data has a space in front
        counts = np.zeros((len(starts), self.member.shape[1]), dtype=np.int64)
        for group in range(counts.shape[1]):
            counts[:, group] = np.bincount(documents, weights=self.member[at[found], group], minlength=len(starts))
        return counts


def _prefilter_index(first: np.ndarray, last: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(first byte, last byte, length) as one index of the prefilter: 7 bits for each byte (the translation leaves
    none above 0x7F), _LENGTH_BITS for the length (capped); in place on 32-bit integers (a million tokens a shard)."""
    index = first.astype(np.uint32)
    index <<= 7
    index |= last
    index <<= _LENGTH_BITS
    capped = length.astype(np.uint32)
    np.minimum(capped, (1 << _LENGTH_BITS) - 1, out=capped)
    index |= capped
    return index


def _hashes(columns, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of packed words: their length and 64-bit columns, each mixed in by a multiply."""
    hashed = np.asarray(lengths, dtype=np.uint64).copy()
    with np.errstate(over="ignore"):
        for column in columns:
            hashed = (hashed ^ column) * FIBONACCI
    return hashed
