"""FaiRR's representative-word counts by the fast paths (gsr.fairness.ascii_counts over ASCII texts, plain TSV files
read as bytes, ids found through gsr.infra.hash_index.HashIndex) against the plain ones: the reference's
tokens (`text.lower().split()`) counted one by one, on random texts with Unicode, punctuation, case, every kind of
whitespace and NUL."""

from __future__ import annotations

import gzip
import random
import shutil

import numpy as np
import pytest

from gsr.documents.opening import open_documents
from gsr.errors import InputError
from gsr.fairness import neutrality
from gsr.fairness.ascii_counts import MAX_WORD, AsciiWords
from gsr.fairness.neutrality import GroupWords, IdTable, count_documents, count_texts, group_words
from gsr.infra import hash_index
from gsr.infra.hash_index import HashIndex
from tests.support import fairr_reference as reference

# every character str.split() splits at, in ASCII and beyond, and characters that look like separators but are not
WHITESPACE = [c for c in map(chr, range(0x3001)) if c.isspace()]
NOT_WHITESPACE = ["\x00", "\x01", "\x7f", "\u200b", "\ufeff", "_", "-", "\u00ad"]
# lowercased to an ASCII word, or near one: Kelvin sign, dotted capital I, final sigma, fullwidth, ligature, accents
UNICODE = ["\u212aing", "\u0130t", "\u03a3\u039f\u03a3", "ｓhe", "ﬁancé", "Señora", "naïve", "straße", "her\u0301"]
PUNCTUATION = ",.;:!?'\"()[]{}<>/\\|@#$%^&*~`+="
# words at the packing's edges: one character, 8 and 9, 16 and 17, MAX_WORD; with capitals, punctuation, non-ASCII
EDGE_WORDS = {
    "f": frozenset({"x", "abcdefgh", "abcdefghi", "she", "her", "mother's", "señora", "y" * 16, "z" * MAX_WORD}),
    "m": frozenset({"he", "He", "his,", "abcdefghijklmnop", "abcdefghijklmnopq", "a b", "king", "\x00he"}),
}


def _random_text(rng: random.Random, vocabulary: list[str]) -> str:
    """Words of `vocabulary` and others in random case, with punctuation, joined by random whitespace; half the texts
    ASCII only (the fast path), half with Unicode words and separators."""
    wide = rng.random() < 0.5
    spaces = WHITESPACE if wide else [c for c in WHITESPACE if c.isascii()]
    glue = NOT_WHITESPACE if wide else [c for c in NOT_WHITESPACE if c.isascii()]
    others = (UNICODE if wide else []) + ["the", "a", "x" * 70]
    parts = [rng.choice(spaces) if rng.random() < 0.2 else ""]
    for _ in range(rng.randint(0, 30)):
        word = rng.choice(vocabulary) if rng.random() < 0.6 else rng.choice(others)
        roll = rng.random()
        if roll < 0.3:
            word = "".join(c.upper() if rng.random() < 0.5 else c for c in word)
        elif roll < 0.45:
            word = word + rng.choice(PUNCTUATION)
        elif roll < 0.5:
            word = rng.choice(PUNCTUATION) + word
        elif roll < 0.55:
            word = word + rng.choice(glue) + rng.choice(vocabulary)
        parts.append(word)
        parts.append(rng.choice(spaces) * rng.randint(1, 2) if rng.random() < 0.3 else " ")
    return "".join(parts)


def _by_tokens(texts: list[str], words: GroupWords) -> np.ndarray:
    """The reference's DocumentNeutrality.get_magnitude_count on the whitespace tokens, one text at a time."""
    counter = reference.DocumentNeutrality.__new__(reference.DocumentNeutrality)
    counter.groups_portion = dict.fromkeys(words.groups, 0.5)
    counter.representative_words = {g: set(words.words[g]) for g in words.groups}
    rows = [counter.get_magnitude_count(text.lower().split()) for text in texts]
    return np.array([[row[g] for g in words.groups] for row in rows], dtype=np.int64).reshape(-1, len(words.groups))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("which", ["shipped", "edges"])
def test_ascii_counts_equal_the_token_by_token_counts_on_random_texts(seed, which, monkeypatch):
    from gsr.fairness import ascii_counts

    if seed % 2:
        monkeypatch.setattr(ascii_counts, "BLOCK", 60)  # blocks of a few documents, or of one longer than that
    words = group_words() if which == "shipped" else GroupWords(EDGE_WORDS, "edges")
    vocabulary = sorted(set().union(*words.words.values())) + ["she's", "he-", "mother", "her."]
    rng = random.Random(seed)
    texts = [_random_text(rng, vocabulary) for _ in range(400)]
    texts += ["", " ", "he", "HE\nshe", "she\x00he", "x" * MAX_WORD, "z" * MAX_WORD, "\u212aING king", "x\x1fhe\x1c"]
    fast = count_texts(texts, words)
    expected = _by_tokens(texts, words)
    assert fast.tolist() == expected.tolist()
    assert expected.sum() > 100  # the texts hold words to count, and ASCII ones went the fast way
    assert sum(t.isascii() for t in texts) > 100


def test_the_packed_table_counts_what_it_says_and_refuses_what_it_cannot_pack():
    table = AsciiWords.of([EDGE_WORDS["f"], EDGE_WORDS["m"]])
    assert table is not None and len(table.lengths) == 15  # 'señora', 'a b' never match an ASCII token: left out
    texts = [b"He he his, HIS, x X abcdefghi", b"abcdefghijklmnopq abcdefghijklmnop" + b" y" * 3, b"king\x00he"]
    counts, skipped = table.count(b"\n".join(texts), np.array([len(t) for t in texts]))
    assert counts.tolist() == [[3, 4], [0, 2], [0, 0]] and skipped.tolist() == [False, False, True]
    assert AsciiWords.of([frozenset({"w" * (MAX_WORD + 1)}), frozenset({"he"})]) is None
    # NUL and bytes beyond ASCII mark their document for the token-by-token count, wherever they are
    mixed = [b"she", "señora she".encode(), b"he\x00", b"he"]
    counts, skipped = table.count(b"\n".join(mixed), np.array([len(t) for t in mixed]))
    assert skipped.tolist() == [False, True, True, False] and counts.tolist() == [[1, 0], [0, 0], [0, 0], [0, 1]]


def test_colliding_hashes_leave_the_word_list_to_the_token_by_token_count(monkeypatch):
    from gsr.fairness import ascii_counts

    # a token whose hash (here: its length) and first and last letters are a word's is still compared byte by byte
    monkeypatch.setattr(ascii_counts, "_hashes", lambda columns, lengths: np.asarray(lengths, dtype=np.uint64))
    table = AsciiWords.of([frozenset({"she"}), frozenset({"he"})])
    assert table is not None and table.count(b"sxe she hx", np.array([10]))[0].tolist() == [[1, 0]]
    monkeypatch.setattr(ascii_counts, "_hashes", lambda columns, lengths: np.zeros(len(lengths), dtype=np.uint64))
    assert AsciiWords.of([frozenset({"she"}), frozenset({"he"})]) is None
    neutrality._ascii_words.cache_clear()
    try:
        words = GroupWords({"f": frozenset({"she"}), "m": frozenset({"he"})}, "two")
        assert count_texts(["she he He", "he,"], words).tolist() == [[1, 2], [0, 0]]
    finally:
        neutrality._ascii_words.cache_clear()


def test_the_hash_index_finds_every_key_and_no_other(monkeypatch):
    rng = np.random.default_rng(3)
    for size in (0, 1, 5, 1000, 50_000):
        keys = np.unique(rng.integers(0, 2**63, size=size, dtype=np.uint64))
        rng.shuffle(keys)
        index = HashIndex(keys)
        absent = rng.integers(0, 2**63, size=2 * size + 3, dtype=np.uint64)
        absent = absent[~np.isin(absent, keys)]
        assert index.find(keys).tolist() == list(range(len(keys)))
        assert (index.find(absent) == -1).all()
    # keys that share their home slot (every key's, here) probe on past each other, and so do absent ones
    monkeypatch.setattr(hash_index, "FIBONACCI", np.uint64(0))
    crowded = np.arange(1, 200, dtype=np.uint64) * np.uint64(7919)
    index = HashIndex(crowded)
    assert index.find(crowded[::-1]).tolist() == list(range(len(crowded)))[::-1]
    assert index.find(crowded + np.uint64(1)).tolist() == [-1] * len(crowded)
    monkeypatch.undo()
    table = IdTable.of([b"d3", b"d1", b"x" * 30])
    found, rows = table.lookup(np.array([b"d1", b"zz", b"x" * 30, b"d3"]))
    assert found.tolist() == [True, False, True, True]
    assert table.ids[rows[found]].tolist() == [b"d1", b"x" * 30, b"d3"]


def _collection(rng: random.Random, n: int) -> tuple[str, dict[str, str]]:
    """A TSV file's content with awkward lines (CRLF, a byte-order mark, blank lines, spaces around an id, an empty
    text, no final line end) and its documents as tsv_document reads them."""
    vocabulary = sorted(set().union(*group_words().words.values()))[:60] + ["the", "a,"]
    lines, texts = [], {}
    for i in range(n):
        text = _random_text(rng, vocabulary).replace("\n", " ").replace("\r", " ").replace("\x00", "")
        docid, text = f"d{i}", "" if i == 7 else text  # a file's lines end at \n only: other separators stay
        field = f" {docid} " if i == 11 else docid
        lines.append(f"{field}\t{text}" + ("\r\n" if i % 5 == 0 else "\n") + ("\n \n" if i % 9 == 0 else ""))
        texts[docid] = text
    return "\ufeff" + "".join(lines).rstrip("\n"), texts


@pytest.mark.parametrize(("jobs", "sparse_bytes"), [(1, 10), (2, 1 << 30)])  # records read one by one, or mapped
def test_a_tsv_file_read_as_bytes_gives_the_counts_of_its_texts(tmp_path, own_cache, monkeypatch, jobs, sparse_bytes):
    content, texts = _collection(random.Random(11), 300)
    path = tmp_path / "docs.tsv"
    path.write_text(content, encoding="utf-8")
    monkeypatch.setattr(neutrality, "SHARD", 37)
    monkeypatch.setattr(neutrality, "PARALLEL_FROM", 1)
    from gsr.documents import lines

    monkeypatch.setattr(lines, "MAP_WINDOW", 4096)  # many windows
    monkeypatch.setattr(lines, "SPARSE_BYTES", sparse_bytes)
    words = group_words()
    wanted = np.array(sorted({f"d{i}".encode() for i in random.Random(2).sample(range(300), 200)} | {b"d0", b"d11"}))
    counted = count_documents(path, wanted, words, n_jobs=jobs)
    expected = _by_tokens([texts[d.decode()] for d in counted.table.ids.tolist()], words)
    assert counted.found.all() and counted.counts.tolist() == expected.tolist() and expected.sum() > 50
    # the file's bytes were used where they could be: not for the first line (byte-order mark) nor ' d11 '
    source = open_documents(path)
    listing = source.listing()
    raw, read = source.text_bytes_at(0, listing.ids[:15], listing.offsets[:15], listing.offsets[1:16])
    assert np.flatnonzero(~read).tolist() == [0, 11] and len(raw) == 13
    # each text as the file holds it, with its line end and the blank lines up to the next record
    assert raw[4] == texts["d5"].encode() + b"\r\n" and raw[8] == texts["d9"].encode() + b"\n\n \n"
    assert raw[6] == b"\n"
    gzipped = tmp_path / "docs.tsv.gz"
    gzipped.write_bytes(gzip.compress(path.read_bytes()))
    assert open_documents(gzipped).text_bytes_at(0, listing.ids[:2], listing.offsets[:2], listing.offsets[1:3]) is None
    shutil.rmtree(own_cache / "document-group-counts")
    again = count_documents(gzipped, wanted, words, n_jobs=jobs)
    assert again.counts.tolist() == counted.counts.tolist()


def test_a_collection_of_several_files_searched_in_small_blocks(tmp_path, own_cache, monkeypatch):
    """Shards never span two files, whatever the blocks the listing is searched in."""
    rng = random.Random(4)
    folder = tmp_path / "collection"
    folder.mkdir()
    texts = {}
    for number in range(3):
        content, part = _collection(rng, 40)
        part = {f"{number}-{docid}": text for docid, text in part.items()}
        lines = content.removeprefix("\ufeff").split("\n")
        (folder / f"part{number}.tsv").write_text(
            "\n".join(f"{number}-{line.lstrip()}" if "\t" in line else line for line in lines), encoding="utf-8"
        )
        texts.update(part)
    monkeypatch.setattr(neutrality, "SCAN_BLOCK", 7)
    monkeypatch.setattr(neutrality, "SHARD", 5)
    monkeypatch.setattr(neutrality, "PARALLEL_FROM", 1)
    wanted = np.array(sorted(d.encode() for d in random.Random(3).sample(sorted(texts), 70)) + [b"missing"])
    counted = count_documents(folder, wanted, group_words(), n_jobs=2)
    rows = counted.rows_of(wanted[:-1])
    assert counted.found[rows].all() and not counted.found[counted.rows_of(wanted[-1:])].any()
    assert counted.counts[rows].tolist() == _by_tokens([texts[d.decode()] for d in wanted[:-1]], group_words()).tolist()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"d2\tshe \xff he\n", r"docs\.tsv \(byte 7\): not UTF-8 text \(byte 0xff at column 8\)"),
        (b"d2\tshe\x00he\n", r"docs\.tsv \(byte 7\): a NUL byte at column 7"),
    ],
)
def test_a_line_not_ascii_is_read_as_text_with_its_errors(tmp_path, own_cache, line, message):
    """Bytes beyond ASCII (or NUL) send a document to read_at, which reports what it finds there. (Listing the file
    checks every line first, so here the file changes after it was listed, keeping its offsets.)"""
    path = tmp_path / "docs.tsv"
    path.write_bytes(b"d1\tshe\n" + line.replace(b"\xff", b"x").replace(b"\x00", b"x") + b"d3\the\n")
    source = open_documents(path)
    source.listing()
    path.write_bytes(b"d1\tshe\n" + line + b"d3\the\n")
    with pytest.raises(InputError, match=message):
        count_documents(source, np.array([b"d1", b"d2", b"d3"]), group_words(), n_jobs=1)
