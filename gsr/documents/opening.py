"""Where documents can be: every form the documents argument of `gsr score --docs`, `GSR.evaluate`,
`GSR.documents` and the `files` collection kind takes, opened as a gsr.documents.base.DocumentSource.

* JSONL (`{"id", "contents"}`, BEIR's `_id`/`title`/`text`, ...) and TSV (`docid<TAB>text`) files, plain or
  gzip'd, or a folder of them (an Anserini JsonCollection folder);
* TREC SGML / TREC-web files or folders (plain, .gz, .z), read by gsr.documents.sgml;
* `irds:NAME`, an ir_datasets dataset, read by gsr.documents.irds;
* any folder or file a registered resolver claims: retrievers.lucene registers one for Anserini/Pyserini Lucene
  indexes (on import, and through the `gsr.document_sources` entry point), since gsr imports no other package; the
  entry point group's sources (another distribution's too, gsr.infra.plugins) are imported only for a path that is
  not a documents file named as one, so scoring a `.jsonl` file imports none of them;
* a DocumentSource of the caller's own.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeAlias

from gsr.documents.base import DocumentSource, collection_files
from gsr.documents.irds import IrdsDocuments
from gsr.documents.lines import DOC_ID_KEYS, DOC_TEXT_KEYS, LineDocuments, file_format, format_by_name
from gsr.documents.sgml import TrecSgmlDocuments
from gsr.errors import GSRError, InputError
from gsr.infra import plugins
from gsr.infra.digests import content_key
from gsr.io.records import IRDS_PREFIX, frame_column, is_dataframe

ENTRY_POINT_GROUP = "gsr.document_sources"
LUCENE_MARKER = "segments_*"  # a committed Lucene index has one

Resolver = Callable[[Path], "DocumentSource | None"]
# what iter_documents reads: a path or "irds:NAME" (open_documents), a DocumentSource, a {docid: text} mapping, a
# DataFrame or an iterable of (docid, text) pairs
DocumentTexts: TypeAlias = str | os.PathLike[str] | DocumentSource | Mapping[Any, str] | Iterable[Any]
_RESOLVERS: list[Resolver] = []
_entry_points_loaded = False


def register_document_source(resolver: Resolver) -> Resolver:
    """Let `open_documents` read a new kind of path: `resolver(path)` returns a DocumentSource, or None when the
    path is not of its kind. Resolvers are asked in registration order, before the built-in file formats; those of the
    `gsr.document_sources` entry point group join them when a path that is not a documents file named as one
    (`.jsonl`, `.tsv`, ...) is first opened.

    Args:
        resolver: A function of a Path returning a DocumentSource or None.

    Returns:
        The resolver, so that the function can be used as a decorator.

    Example:
        >>> @register_document_source
        ... def nothing(path):  # claims no path: open_documents goes on to the next resolver
        ...     return None
        >>> register_document_source(nothing) is nothing  # registered once, however often it is given
        True
    """
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)
    return resolver


def _load_entry_points() -> None:
    """The document sources distributions declare under `gsr.document_sources` (gsr-bench's own Lucene reader among
    them), imported once, the first time a path no built-in reader knows by its name is opened. Held to
    gsr.infra.plugins' contract: one that fails to import, or raises when asked about a path, is one warning naming
    it and is left out; the version of what one opens covers its code."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for plugin in plugins.plugins(ENTRY_POINT_GROUP):
        if _shadowed(plugin.entry_point):
            continue
        resolver = plugins.load(plugin)
        if callable(resolver):
            register_document_source(resolver if plugin.is_builtin() else _guarded(resolver, plugin))


def _guarded(resolver: Resolver, plugin: plugins.Plugin) -> Resolver:
    """A plugin's resolver: its error (other than a GSRError, its own message about the path) is one warning and
    None (the next resolver is asked); what it opens has a version that covers the plugin's code."""

    def resolve(path: Path) -> DocumentSource | None:
        try:
            with plugins.calling(plugin):
                opened = resolver(path)
        except GSRError:
            raise
        except Exception as err:
            plugin.warn("when asked to open a path", err)
            return None
        if opened is not None:
            version = opened.version
            opened.version = lambda: content_key(version(), plugin.code_key)  # type: ignore[method-assign]
        return opened

    return resolve


def _shadowed(entry) -> bool:
    """Whether `entry` is one of gsr-bench's own (the Lucene reader, in `retrievers`) whose package would be imported
    from elsewhere than beside gsr: from a user's folder of that name earlier on sys.path (a research project's own
    retrievers/), whose code must never run in its place. Found without importing anything."""
    dist = getattr(entry, "dist", None)
    if dist is None or dist.name.replace("_", "-").lower() != "gsr-bench":
        return False
    spec = importlib.util.find_spec(entry.module.split(".")[0])
    beside_gsr = Path(__file__).resolve().parents[2]  # the folder holding gsr/ and the harness's packages
    return spec is None or spec.origin is None or Path(spec.origin).resolve().parents[1] != beside_gsr


def _open_path(path: Path) -> DocumentSource:
    if path.is_dir():
        if any(path.glob(LUCENE_MARKER)):
            raise InputError(
                f"{path}: a Lucene index, but no reader for Lucene indexes is registered "
                "(import retrievers.lucene, or install gsr-bench, whose entry point registers it)"
            )
        files = collection_files([path])
        formats = [format_by_name(f) for f in files]
        if files and all(formats):
            return LineDocuments(files, [f for f in formats if f is not None], str(path))
        return TrecSgmlDocuments(files, name=str(path))  # the files just listed: no second walk
    kind = file_format(path)
    if kind == "sgml":
        return TrecSgmlDocuments([path])
    return LineDocuments([path], [kind], str(path))


def open_documents(source: str | os.PathLike[str] | DocumentSource) -> DocumentSource:
    """A DocumentSource for a path (file or folder), `irds:NAME`, or a DocumentSource (returned as it is).

    Args:
        source: The documents.

    Returns:
        The source; nothing is read yet.

    Raises:
        InputError: If the path does not exist, or is a Lucene index and no reader for those is registered.
        TypeError: If `source` is neither a path nor a DocumentSource.

    Example:
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder, "documents.jsonl")
        ...     _ = path.write_text('{"id": "d1", "contents": "she sings"}\\n')
        ...     list(open_documents(path))
        [('d1', 'she sings')]
    """
    if isinstance(source, DocumentSource):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"cannot read documents from {type(source).__name__}")
    text = os.fspath(source)
    if text.startswith(IRDS_PREFIX):
        return IrdsDocuments(text[len(IRDS_PREFIX) :])
    path = Path(text).expanduser()
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not (path.is_file() and format_by_name(path)):  # a documents file named as one is read here, no plugin asked
        _load_entry_points()
    for resolver in _RESOLVERS:
        opened = resolver(path)
        if opened is not None:
            return opened
    return _open_path(path)


def iter_documents(source: DocumentTexts) -> Iterator[tuple[str, str]]:
    """(docid, text) pairs from anything open_documents reads (a file, folder, Lucene index or irds:NAME), a
    {docid: text} mapping, a DataFrame or an iterable of pairs.

    Args:
        source: The documents, in any of these forms.

    Returns:
        An iterator over the (docid, text) pairs.

    Raises:
        InputError: If the documents cannot be read.

    Example:
        >>> list(iter_documents({"d1": "she sings", 2: "he sings"}))
        [('d1', 'she sings'), ('2', 'he sings')]
    """
    if isinstance(source, (str, os.PathLike)):
        return iter(open_documents(source))
    if isinstance(source, Mapping):
        return iter((str(k), v) for k, v in source.items())
    if is_dataframe(source):
        frame: Any = source  # pandas or pandas-like, which gsr does not import
        id_col = frame_column(frame, DOC_ID_KEYS, "document id")
        text_col = frame_column(frame, DOC_TEXT_KEYS, "document text")
        return zip(frame[id_col].astype(str), frame[text_col])
    return iter(source)
