"""Encoding texts in batches, a collection's document embeddings as one verified cache entry, and exact
inner-product top-k search over them.

Passages (`PassageSettings`): by default a document is encoded whole, truncated to the encoder's window (MiniLM: 256
word pieces). With `mode = "maxp"` it is cut into windows of `words` words every `stride` words (the last ending at
the document's end), and scores its best window (MaxP, Dai & Callan 2019: 150-word windows, 75-word stride).

The document embeddings of one (encoder content, collection, passage settings) are written once as a cache entry
(gsr.infra.store.cached_folder: `vectors.npy` [passages, dim] float32, `offsets.npy` [documents + 1] int64
(document i owns rows offsets[i]:offsets[i + 1]), `docids.json`, `meta.json`; a manifest verified before every
reuse; arrays read with allow_pickle=False, memory-mapped). The collection is encoded in shards of
`SHARD_DOCUMENTS` documents, each a verified cache file of its own, so an interrupted encoding (Ctrl-C, a killed
process) resumes at the first missing shard and never leaves half an entry under the final name; the shards are
removed once the entry is complete.

Search is exact: inner products of the query vectors with every passage vector (unit vectors for cosine encoders)
in blocks of documents, a document scoring its best passage, the top k kept; FAISS's exact flat inner-product index
instead where `faiss` is installed and every document is one vector (`use_faiss`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.infra.digests import content_key
from gsr.infra.logs import get as get_logger
from gsr.infra.numeric import unit_rows
from gsr.infra.progress import progress
from gsr.infra.store import cache_dir, cached_file, cached_folder, clean_stale_staging
from retrievers.dense.encoders import EncoderError, EncoderLocation, load_bi_encoder
from retrievers.device import out_of_memory, resolve_device

log = get_logger("dense")

EMBEDDINGS_FORMAT = 1  # bump when the entry's layout or content changes
PASSAGE_MODES = ("first", "maxp")
DEFAULT_PASSAGE_WORDS, DEFAULT_PASSAGE_STRIDE = 150, 75
SHARD_DOCUMENTS = 4096
ENCODE_CALL_BATCHES = 16  # batches encoded per call of the model's encode
SEARCH_BLOCK_ROWS = 65_536  # passage rows scored at a time: 250 queries x 65,536 float32 = 64 MB


@dataclass(frozen=True)
class PassageSettings:
    """How documents longer than the encoder's window are handled: 'first' (truncated by the encoder) or 'maxp'
    (windows of `words` words every `stride` words, scored by their maximum)."""

    mode: str = "first"
    words: int = DEFAULT_PASSAGE_WORDS
    stride: int = DEFAULT_PASSAGE_STRIDE

    def __post_init__(self):
        if self.mode not in PASSAGE_MODES:
            raise EncoderError(f"passages = {self.mode!r}: choose one of {', '.join(PASSAGE_MODES)}")
        if self.words < 1 or self.stride < 1:
            raise EncoderError(f"passage_words and passage_stride must be at least 1, not {self.words}, {self.stride}")

    def split(self, text: str) -> list[str]:
        """The texts a document is encoded as: itself ('first'), or its word windows ('maxp'; at least one)."""
        if self.mode == "first":
            return [text]
        words = text.split()
        if len(words) <= self.words:
            return [" ".join(words)]
        starts = list(range(0, len(words) - self.words + 1, self.stride))
        if starts[-1] + self.words < len(words):
            starts.append(len(words) - self.words)  # the last window ends at the document's end
        return [" ".join(words[s : s + self.words]) for s in starts]

    def key(self) -> dict:
        return (
            {"mode": self.mode}
            if self.mode == "first"
            else {"mode": self.mode, "words": self.words, "stride": self.stride}
        )


def encoder_key(location: EncoderLocation) -> str:
    """The cache key part naming a bi-encoder's vectors: its content digest and the post-processing version."""
    return content_key("bi-encoder", location.digest)


class BiEncoder:
    """A loaded sentence-transformers bi-encoder: what it is (location, content digest), how it ranks (cosine: its
    vectors are unit-normalised; dot: used as they are), and batched encoding of queries, documents and texts."""

    def __init__(self, location: EncoderLocation, model, device: str, batch_size: int = 32):
        self.location = location
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self.similarity = getattr(model, "similarity_fn_name", None) or "cosine"
        self.dimensions = int(
            model.get_embedding_dimension()
            if hasattr(model, "get_embedding_dimension")
            else model.get_sentence_embedding_dimension()
        )
        self.max_seq_length = getattr(model, "max_seq_length", None)

    @classmethod
    def load(
        cls, location: EncoderLocation, device: str = "auto", batch_size: int = 32, setting: str = "device"
    ) -> BiEncoder:
        """Load and check (encoders.load_bi_encoder) the encoder at `location` on `device`."""
        torch_device = resolve_device(device, setting)
        return cls(location, load_bi_encoder(location, torch_device, batch_size, setting), torch_device, batch_size)

    @property
    def unit(self) -> bool:
        """True when the encoder ranks by cosine: its vectors are unit-normalised, so inner product is cosine."""
        return self.similarity == "cosine"

    def key(self) -> str:
        """What the vectors depend on: the encoder's content (which also fixes its similarity, so how the vectors are
        post-processed), known without loading the model."""
        return encoder_key(self.location)

    def encode(self, texts: Sequence[str], role: str = "text", bar=None) -> np.ndarray:
        """float32 [len(texts), dim]: each text encoded (as a 'query', a 'document' with the model's own prompts for
        them where it has any, or a plain 'text'), longest first in batches of batch_size, in input order; unit rows
        for cosine encoders. `bar` (a progress bar) is advanced per batch by the number of texts."""
        method = {
            "query": getattr(self.model, "encode_query", None),
            "document": getattr(self.model, "encode_document", None),
        }.get(role) or self.model.encode
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        # one model call per ENCODE_CALL_BATCHES batches: its fixed cost per call was 10% at batch 128 on a GPU
        step = self.batch_size * ENCODE_CALL_BATCHES
        with out_of_memory(f"encoding with {self.location.folder}", self.device, "lower batch_size"):
            for start in range(0, len(texts), step):
                rows = order[start : start + step]
                vectors = method(
                    [texts[i] for i in rows], batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
                )
                out[rows] = np.asarray(vectors, dtype=np.float32)
                if bar is not None:
                    bar.update(len(rows))
        if not np.isfinite(out).all():
            raise EncoderError(f"{self.location.folder}: the encoder gave non-finite embeddings (NaN or infinity)")
        return unit_rows(out, in_place=True) if self.unit else out


@dataclass
class DocumentEmbeddings:
    """A collection's passage vectors: document i owns rows offsets[i]:offsets[i + 1] of `vectors`."""

    docids: list[str]
    vectors: np.ndarray  # [passages, dim] float32 (memory-mapped from the cache)
    offsets: np.ndarray  # [documents + 1] int64
    folder: Path | None = None
    key: str = ""

    @classmethod
    def load(cls, folder: Path, key: str = "") -> DocumentEmbeddings:
        vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
        offsets = np.load(folder / "offsets.npy", allow_pickle=False)
        docids = json.loads((folder / "docids.json").read_text(encoding="utf-8"))
        return cls(docids, vectors, offsets, folder, key)

    @property
    def one_per_document(self) -> bool:
        return len(self.vectors) == len(self.docids)


def iter_documents(path: Path) -> Iterator[tuple[str, str]]:
    """(id, contents) of a canonical JSONL documents file, in file order."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            yield record["id"], record["contents"]


def _shards(documents: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    shard: list[tuple[str, str]] = []
    for item in documents:
        shard.append(item)
        if len(shard) == size:
            yield shard
            shard = []
    if shard:
        yield shard


def partial_encoder(encoder, texts: list[str], bar) -> Callable[[Path], None]:
    """The writer of one shard's document vectors, built when (and only if) the cache has no such shard."""
    return lambda target: _save_array(encoder.encode(texts, "document", bar))(target)


def _save_array(array: np.ndarray) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with open(path, "wb") as handle:
            np.save(handle, np.ascontiguousarray(array), allow_pickle=False)

    return write


def dense_cache() -> Path:
    return cache_dir() / "dense"


def document_embeddings(
    encoder: BiEncoder,
    documents: Path,
    collection_key: str,
    passages: PassageSettings = PassageSettings(),
    n_documents: int | None = None,
    shard_documents: int = SHARD_DOCUMENTS,
) -> tuple[DocumentEmbeddings, bool]:
    """The collection's document embeddings under `encoder`, from the cache when this (encoder content, collection,
    passage settings) was encoded before; (embeddings, reused). `n_documents` sizes the progress bar."""
    key = content_key("documents", EMBEDDINGS_FORMAT, encoder.key(), collection_key, passages.key())
    partial = dense_cache() / "partial" / key

    def build(staging: Path) -> None:
        docids: list[str] = []
        counts: list[int] = []
        shard_files: list[Path] = []
        log.info(
            "encoding %s documents with %s on %s (batches of %d%s)",
            f"{n_documents:,}" if n_documents else "the",
            encoder.location.name,
            encoder.device,
            encoder.batch_size,
            "" if passages.mode == "first" else f", MaxP passages of {passages.words} words",
        )
        partial.mkdir(parents=True, exist_ok=True)
        clean_stale_staging(partial)
        with progress(total=n_documents, desc="encoding documents", unit="doc") as bar:
            for number, shard in enumerate(_shards(iter_documents(documents), shard_documents)):
                split = [passages.split(text) for _, text in shard]
                docids.extend(docid for docid, _ in shard)
                counts.extend(len(p) for p in split)
                texts = [p for parts in split for p in parts]
                shard_bar = _DocumentBar(bar, [len(p) for p in split])
                encode = partial_encoder(encoder, texts, shard_bar)
                path, reused = cached_file(partial / f"shard-{number:06d}.npy", encode)
                if reused:
                    bar.update(len(shard))
                shard_files.append(path)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        vectors = np.lib.format.open_memmap(
            staging / "vectors.npy", mode="w+", dtype=np.float32, shape=(int(offsets[-1]), encoder.dimensions)
        )
        row = 0
        for path in shard_files:
            shard_vectors = np.load(path, mmap_mode="r", allow_pickle=False)
            vectors[row : row + len(shard_vectors)] = shard_vectors
            row += len(shard_vectors)
        if row != len(vectors):
            raise EncoderError(f"{partial}: the shards hold {row:,} vectors, {len(vectors):,} were expected")
        vectors.flush()
        del vectors
        np.save(staging / "offsets.npy", offsets, allow_pickle=False)
        (staging / "docids.json").write_text(json.dumps(docids), encoding="utf-8")
        meta = {
            "format": EMBEDDINGS_FORMAT,
            "encoder": encoder.location.name,
            "encoder_digest": encoder.location.digest,
            "similarity": encoder.similarity,
            "unit": encoder.unit,
            "dimensions": encoder.dimensions,
            "max_seq_length": encoder.max_seq_length,
            "collection": collection_key,
            "passages": passages.key(),
            "documents": len(docids),
            "vectors": int(offsets[-1]),
        }
        (staging / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    folder, reused = cached_folder(dense_cache() / "documents" / key, build)
    if partial.exists():
        shutil.rmtree(partial, ignore_errors=True)
    return DocumentEmbeddings.load(folder, key), reused


class _DocumentBar:
    """Advances a documents bar as passages are encoded: a document counts once all its passages are done (the
    encoder sorts texts by length, so this is approximate within a shard and exact at its end)."""

    def __init__(self, bar, counts: list[int]):
        self.bar, self.total_passages, self.total_documents = bar, sum(counts), len(counts)
        self.passages = self.shown = 0

    def update(self, n: int) -> None:
        self.passages += n
        documents = self.total_documents * self.passages // max(self.total_passages, 1)
        self.bar.update(documents - self.shown)
        self.shown = documents


def transformed_embeddings(
    embeddings: DocumentEmbeddings,
    transform: Callable[[np.ndarray], np.ndarray],
    transform_key: str,
    block_rows: int = SEARCH_BLOCK_ROWS,
) -> tuple[DocumentEmbeddings, bool]:
    """`embeddings` with `transform` applied to every vector block (e.g. debiasing), cached under (embeddings,
    transform_key); (embeddings, reused)."""
    key = content_key("transformed", EMBEDDINGS_FORMAT, embeddings.key, transform_key)

    if embeddings.folder is None:
        raise ValueError("transformed_embeddings needs document embeddings read from their cache folder")
    folder: Path = embeddings.folder

    def build(staging: Path) -> None:
        source = embeddings.vectors
        vectors = np.lib.format.open_memmap(staging / "vectors.npy", mode="w+", dtype=np.float32, shape=source.shape)
        for start in range(0, len(source), block_rows):
            vectors[start : start + block_rows] = transform(
                np.array(source[start : start + block_rows], dtype=np.float32)
            )
        vectors.flush()
        del vectors
        np.save(staging / "offsets.npy", embeddings.offsets, allow_pickle=False)
        shutil.copyfile(folder / "docids.json", staging / "docids.json")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        meta.update(source=embeddings.key, transform=transform_key)
        (staging / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    folder, reused = cached_folder(dense_cache() / "documents" / key, build)
    return DocumentEmbeddings.load(folder, key), reused


def faiss_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("faiss") is not None


def search(
    query_vectors: np.ndarray,
    embeddings: DocumentEmbeddings,
    k: int,
    use_faiss: bool | None = None,
    block_rows: int = SEARCH_BLOCK_ROWS,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k by inner product: (document indices [queries, k'], scores [queries, k']), best first, with
    k' = min(k, documents); a document's score is its best passage's. FAISS's flat inner-product index is used where
    installed and each document is one vector (use_faiss None), or when use_faiss is True."""
    query_vectors = np.ascontiguousarray(query_vectors, dtype=np.float32)
    n_docs = len(embeddings.docids)
    k = min(int(k), n_docs)
    if use_faiss is None:
        use_faiss = embeddings.one_per_document and faiss_available()
    if use_faiss and embeddings.one_per_document:
        import faiss

        index = faiss.IndexFlatIP(embeddings.vectors.shape[1])
        index.add(np.ascontiguousarray(embeddings.vectors, dtype=np.float32))
        scores, rows = index.search(query_vectors, k)
        return rows.astype(np.int64), scores
    best_scores = np.full((len(query_vectors), 0), -np.inf, dtype=np.float32)
    best_docs = np.zeros((len(query_vectors), 0), dtype=np.int64)
    offsets = embeddings.offsets
    doc = 0
    while doc < n_docs:
        # a block of whole documents, about block_rows passages
        end = int(np.searchsorted(offsets, offsets[doc] + block_rows, side="right")) - 1
        end = min(max(end, doc + 1), n_docs)
        rows = slice(int(offsets[doc]), int(offsets[end]))
        scores = query_vectors @ np.asarray(embeddings.vectors[rows], dtype=np.float32).T
        if end - doc != scores.shape[1]:  # several passages per document: the best one scores the document
            scores = np.maximum.reduceat(scores, offsets[doc:end] - offsets[doc], axis=1)
        docs = np.arange(doc, end, dtype=np.int64)
        all_scores = np.concatenate([best_scores, scores], axis=1)
        all_docs = np.concatenate([best_docs, np.broadcast_to(docs, scores.shape)], axis=1)
        if all_scores.shape[1] > k:
            keep = np.argpartition(-all_scores, k - 1, axis=1)[:, :k]
            all_scores = np.take_along_axis(all_scores, keep, axis=1)
            all_docs = np.take_along_axis(all_docs, keep, axis=1)
        best_scores, best_docs = all_scores, all_docs
        doc = end
    order = np.argsort(-best_scores, axis=1, kind="stable")
    return np.take_along_axis(best_docs, order, axis=1), np.take_along_axis(best_scores, order, axis=1)


def ranked_lists(
    queries: dict[str, str],
    encoder: BiEncoder,
    embeddings: DocumentEmbeddings,
    k: int,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """qid -> [(docid, score)], best first: the queries encoded (then `transform`ed, e.g. debiased, like the
    documents) and searched exactly."""
    qids = list(queries)
    vectors = encoder.encode([queries[q] for q in qids], "query")
    if transform is not None:
        vectors = transform(vectors)
    rows, scores = search(vectors, embeddings, k)
    docids = embeddings.docids
    return {qid: [(docids[int(d)], float(s)) for d, s in zip(rows[i], scores[i])] for i, qid in enumerate(qids)}
