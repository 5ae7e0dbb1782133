"""An ir_datasets dataset (`irds:NAME`) as a DocumentSource: texts through its document store's random access,
positions through its docs_iter, which ir_datasets serves from the same store once it is built."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gsr.documents.base import DocumentSource, Positions
from gsr.errors import InputError
from gsr.infra.digests import content_key
from gsr.io.records import IRDS_PREFIX, irds_dataset, offline


class IrdsDocuments(DocumentSource):
    """The documents of ir_datasets' dataset `dataset` (e.g. "msmarco-passage", "disks45/nocr")."""

    def __init__(self, dataset: str):
        self.dataset_name = dataset
        self.name = f"{IRDS_PREFIX}{dataset}"
        self.dataset = irds_dataset(self.name)
        if not self.dataset.has_docs():
            raise InputError(
                f"ir_datasets dataset {dataset!r} has no documents (name the collection it belongs "
                "to, e.g. its parent dataset)"
            )
        self._count: int | None = None

    def _unavailable(self, err: Exception) -> InputError:
        return InputError(
            f"ir_datasets {self.dataset_name}: documents not available ({err}); place the licensed "
            "files where ir_datasets expects them (see its documentation for this dataset)"
        )

    def version(self) -> str:
        return content_key("ir_datasets", self.dataset_name)  # a dataset id names fixed content

    def __iter__(self) -> Iterator[tuple[str, str]]:
        try:
            with offline(self.name, "documents"):
                for doc in self.dataset.docs_iter():
                    yield doc.doc_id, doc.default_text()
        except (FileNotFoundError, OSError) as err:
            raise self._unavailable(err) from None

    def _store(self):
        try:
            with offline(self.name, "documents"):
                return self.dataset.docs_store()
        except (NotImplementedError, AttributeError):
            return None
        except (FileNotFoundError, OSError) as err:
            raise self._unavailable(err) from None

    def count(self) -> int:
        if self._count is None:
            try:
                with offline(self.name, "documents"):
                    count = self.dataset.docs_count()
                    store = self._store() if count is None else None
                    if store is not None and hasattr(store, "build"):
                        store.build()  # what ir_datasets does before any random access anyway
                        count = self.dataset.docs_count()
            except (FileNotFoundError, OSError) as err:
                raise self._unavailable(err) from None
            self._count = count if count is not None else sum(1 for _ in self)
        return self._count

    def ids_at(self, positions: Positions) -> list[str]:
        self.count()  # builds the store, so that docs_iter is served from it (positional access)
        docs = self.dataset.docs_iter()
        if hasattr(docs, "__getitem__"):
            with offline(self.name, "documents"):  # also quiet: ir_datasets logs a line per positional access
                return [docs[int(p)].doc_id for p in positions]
        wanted = {int(p) for p in positions}
        found = {i: doc.doc_id for i, doc in enumerate(docs) if i in wanted}
        return [found[int(p)] for p in positions]

    def texts(self, wanted: Iterable[str]) -> Iterator[tuple[str, str]]:
        wanted = set(wanted)
        store = self._store()
        try:
            if store is not None:
                for doc in store.get_many_iter(wanted):
                    yield doc.doc_id, doc.default_text()
                return
            for doc in self.dataset.docs_iter():
                if doc.doc_id in wanted:
                    yield doc.doc_id, doc.default_text()
        except (FileNotFoundError, OSError) as err:
            raise self._unavailable(err) from None
