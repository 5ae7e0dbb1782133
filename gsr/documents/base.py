"""Document sources: the interface every kind of collection is read through, and the listing that lets a
collection kept in files be read once and afterwards only where a run needs it.

A source is never held in memory. GSR of one run needs the texts of the documents the run (and the perfect
engine) returned, and the random engine needs the collection's size and the ids at the positions it draws;
`DocumentSource.fetch` gives exactly that, so scoring costs what the run costs, not what the collection costs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from gsr.errors import InputError
from gsr.infra import logs
from gsr.infra.digests import content_key, file_content_key
from gsr.infra.progress import progress
from gsr.infra.store import cache_dir, cached_folder

log = logs.get("documents")

LISTING_FORMAT = 1
_ID_CHUNK = 1 << 20  # ids collected per numpy block while a listing is built

Positions = Sequence[int] | np.ndarray  # row positions in a collection's order


def collection_files(paths: Iterable[Path]) -> list[Path]:
    """The document files of `paths`: files as given, folders read recursively in name order, without hidden
    files, READMEs, .txt and .dtd files (what TREC disks ship besides documents; a file named itself is read)."""
    files = []
    for path in map(Path, paths):
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        if not path.is_dir():
            files.append(path)
            continue
        files.extend(
            f
            for f in sorted(path.rglob("*"))
            if f.is_file()
            and not f.name.lower().startswith(("readme", "read_me", "."))
            and f.suffix.lower() not in (".txt", ".dtd")
        )
    return files


class DocumentSource(ABC):
    """A collection of (docid, text) documents that is read when needed, never held in memory.

    Positions 0 … count()-1 follow the source's own order: a file's order, Lucene's document numbers,
    ir_datasets' docs_iter order. The random engine draws positions (gsr.baselines.random_positions).
    Iterating a source gives every (docid, text) in position order.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "documents.tsv")
        ...     _ = path.write_text("d1\\tshe sings\\nd2\\the sings\\n")
        ...     source = open_documents(path)  # a DocumentSource
        ...     source.count(), source.ids_at([1]), dict(source.texts(["d2"]))
        (2, ['d2'], {'d2': 'he sings'})
    """

    name: str = "documents"  # how messages name the source

    @abstractmethod
    def version(self) -> str:
        """A key that changes whenever the documents may have changed (it names cache entries).

        Returns:
            The key.
        """

    @abstractmethod
    def __iter__(self) -> Iterator[tuple[str, str]]:
        """Every (docid, text), in position order."""

    @abstractmethod
    def count(self) -> int:
        """How many documents the collection holds.

        Returns:
            The number of documents.
        """

    @abstractmethod
    def ids_at(self, positions: Positions) -> list[str]:
        """The ids of the documents at `positions`, in the same order.

        Args:
            positions: Positions 0 … count()-1.

        Returns:
            The document ids.
        """

    @abstractmethod
    def texts(self, wanted: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(docid, text) of the `wanted` documents the collection holds, each once, in no promised order.

        Args:
            wanted: Document ids; those the collection lacks are left out.

        Returns:
            An iterator over the (docid, text) pairs.
        """

    def fetch(self, wanted: Collection[str], positions: Positions) -> tuple[list[str], Iterator[tuple[str, str]]]:
        """The ids at `positions`, and the texts of those documents and of `wanted` (one read where it can).

        Args:
            wanted: Document ids whose texts are needed.
            positions: Positions whose ids (and texts) are needed.

        Returns:
            (the ids at `positions`, an iterator over the (docid, text) pairs).
        """
        ids = self.ids_at(positions)
        return ids, self.texts(set(wanted).union(ids))


class DocumentListing:
    """Every document's id and place (file number, byte offset), in position order; ids as UTF-8 bytes."""

    FILES = ("ids.npy", "files.npy", "offsets.npy")

    def __init__(self, ids: np.ndarray, files: np.ndarray, offsets: np.ndarray):
        self.ids, self.files, self.offsets = ids, files, offsets

    def __len__(self) -> int:
        return len(self.ids)

    def ids_at(self, positions: Positions) -> list[str]:
        """The ids at `positions`."""
        return [self.ids[int(p)].decode("utf-8") for p in positions]

    def positions_of(self, wanted: Iterable[str]) -> np.ndarray:
        """The positions, ascending, of those `wanted` ids the listing holds."""
        keys = np.array([w.encode("utf-8") for w in set(wanted)], dtype=bytes)
        if not len(keys) or not len(self.ids):
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.isin(self.ids, keys, assume_unique=True))  # ids are checked unique

    def repeated(self) -> tuple[int, int] | None:
        """Positions (first, second) of an id that appears twice, or None."""
        order = np.argsort(self.ids, kind="stable")
        same = np.flatnonzero(self.ids[order[1:]] == self.ids[order[:-1]])
        return None if not len(same) else (int(order[same[0]]), int(order[same[0] + 1]))

    def save(self, folder: Path) -> None:
        for name, values in zip(self.FILES, (self.ids, self.files, self.offsets)):
            np.save(folder / name, values)

    @classmethod
    def load(cls, folder: Path) -> DocumentListing:
        """What `save` wrote, memory-mapped: pages are read only when used."""
        return cls(*(np.load(folder / name, mmap_mode="r") for name in cls.FILES))


class ListingBuilder:
    """Collects (docid, file number, offset) compactly while a collection is read (about 12 bytes a document
    besides the id itself)."""

    def __init__(self):
        self._blocks: list[np.ndarray] = []
        self._pending: list[bytes] = []
        self._files = array("i")
        self._offsets = array("q")

    def add(self, docid: str, file: int, offset: int) -> None:
        self._pending.append(docid.encode("utf-8"))
        self._files.append(file)
        self._offsets.append(offset)
        if len(self._pending) == _ID_CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._blocks.append(np.array(self._pending, dtype=bytes))
            self._pending = []

    def __len__(self) -> int:
        return len(self._offsets)

    def finish(self) -> DocumentListing:
        self._flush()
        ids = np.concatenate(self._blocks) if self._blocks else np.zeros(0, dtype="S1")
        return DocumentListing(
            ids, np.frombuffer(self._files, dtype=np.int32).copy(), np.frombuffer(self._offsets, dtype=np.int64).copy()
        )


class ListedSource(DocumentSource):
    """A collection kept in files. The first read lists every document's id and place (cached under the files'
    version); afterwards the wanted documents are read where they are, in file order, and nothing else is parsed.

    Subclasses say how a file's records are found (`records`), turned into text (`text_of`), read back at
    known offsets (`read_at`) and located for messages (`where`).
    """

    def __init__(self, files: list[Path], name: str):
        self.files = files
        self.name = name
        self._listing: DocumentListing | None = None

    def __getstate__(self) -> dict:
        """The source without its loaded listing: a worker process it is sent to maps the cached listing itself
        where it needs one, instead of receiving a copy of 10⁷ ids and offsets with every task."""
        return {**self.__dict__, "_listing": None}

    @abstractmethod
    def records(self, index: int, path: Path) -> Iterator[tuple[int, str, object]]:
        """(offset, docid, payload) of every document in file `path` (number `index`), in file order."""

    @abstractmethod
    def text_of(self, payload) -> str:
        """A record's text."""

    @abstractmethod
    def read_at(self, index: int, path: Path, offsets: np.ndarray) -> Iterator[tuple[str, str]]:
        """(docid, text) of the documents that start at `offsets` (ascending) of one file."""

    @abstractmethod
    def where(self, index: int, path: Path, offset: int) -> str:
        """'file:line' of the record at `offset`."""

    def text_bytes_at(
        self, index: int, ids: np.ndarray, offsets: np.ndarray, ends: np.ndarray
    ) -> tuple[list[bytes], np.ndarray] | None:
        """The texts of the documents listed at `offsets` of file `index` as the file holds them, undecoded and
        unchecked, where the format allows it (a subclass says how); None (the default) where it does not: read_at.

        Args:
            index: The file's number.
            ids: The documents' listed ids (UTF-8 bytes).
            offsets: Where their records start, ascending.
            ends: Where each record ends at the latest (the next listed record's offset), -1 for the file's end.

        Returns:
            (the bytes of the documents read, in order; which documents were read: the others only read_at reads),
            or None for all.
        """
        return None

    def version(self) -> str:
        return content_key(type(self).__name__, LISTING_FORMAT, [file_content_key(p) for p in self.files])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for index, path in enumerate(self.files):
            for _, docid, payload in self.records(index, path):
                yield docid, self.text_of(payload)

    def listing(self) -> DocumentListing:
        """The listing, built by one pass over the files the first time and reused from the cache afterwards."""
        if self._listing is None:
            folder, reused = cached_folder(cache_dir() / "document-listings" / self.version(), self._write_listing)
            if reused:
                log.info("documents of %s: listing reused from %s", self.name, folder)
            self._listing = DocumentListing.load(folder)
        return self._listing

    def _write_listing(self, staging: Path) -> None:
        builder = ListingBuilder()
        with progress(total=len(self.files), desc=f"listing the documents of {self.name}", unit="file") as bar:
            for index, path in enumerate(self.files):
                for offset, docid, _ in self.records(index, path):
                    builder.add(docid, index, offset)
                bar.update()
        self._save_listing(builder.finish(), staging)

    def _save_listing(self, listing: DocumentListing, staging: Path) -> None:
        """Save `listing` into `staging` after its checks: some document, and no document id twice (naming both
        places)."""
        if not len(listing):
            where = "in this file" if len(self.files) == 1 else f"in its {len(self.files)} files"
            raise InputError(f"{self.name}: no documents {where}")
        repeated = listing.repeated()
        if repeated is not None:
            first, second = (
                self.where(int(listing.files[p]), self.files[listing.files[p]], int(listing.offsets[p]))
                for p in repeated
            )
            raise InputError(
                f"{second}: document id {listing.ids_at([repeated[0]])[0]} appears twice (first at {first})"
            )
        listing.save(staging)

    def count(self) -> int:
        return len(self.listing())

    def ids_at(self, positions: Positions) -> list[str]:
        return self.listing().ids_at(positions)

    def texts(self, wanted: Iterable[str]) -> Iterator[tuple[str, str]]:
        listing = self.listing()
        positions = listing.positions_of(wanted)
        files, offsets = np.asarray(listing.files[positions]), np.asarray(listing.offsets[positions])
        for index in np.unique(files):
            yield from self.read_at(int(index), self.files[index], offsets[files == index])
