"""The one way every package opens text and JSON files: UTF-8 (plain or .gz), a byte-order mark skipped (at the
start of the file and of any later line, where `cat a b > c` leaves the second file's), and every failure an
InputError naming the file and line (bytes that are not UTF-8, a NUL byte, invalid or too deeply nested JSON, a field
of the wrong type).
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

from gsr.errors import InputError
from gsr.infra.digests import check_regular_input

_JSON_TYPES = {
    "int": "a number",
    "float": "a number",
    "bool": "true/false",
    "NoneType": "null",
    "list": "an array",
    "dict": "an object",
    "str": "a string",
}


def open_binary(path: Path):
    """A file opened for reading bytes (gunzipped when its name ends in .gz); a missing or unreadable file is an
    InputError naming it, and so is a pipe or a device (check_regular_input: gsr reads its inputs more than once)."""
    check_regular_input(path)
    try:
        return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror})") from None


def line_blocks(path: Path, size: int) -> Iterator[bytes]:
    """The file (gunzipped where open_binary does) in blocks of whole lines read `size` bytes at a time; the last
    block as the file ends, with or without a line end."""
    with open_binary(path) as handle:
        tail = b""
        while chunk := handle.read(size):
            data = tail + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                yield data[:cut]
            tail = data[cut:]
        if tail:
            yield tail


def _decoded(data: bytes, path: Path | str, first_line: int) -> str:
    """UTF-8 `data` (starting at line `first_line` of `path`) as text; other bytes, and NUL bytes (binary data,
    which would split a word or an id unseen), are an error naming the line."""
    nul = data.find(b"\0")
    if nul >= 0:
        line, column = first_line + data.count(b"\n", 0, nul), nul - data.rfind(b"\n", 0, nul)
        raise InputError(f"{path}:{line}: a NUL byte at column {column}: binary data, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = first_line + data.count(b"\n", 0, err.start)
        column = err.start - data.rfind(b"\n", 0, err.start)
        raise InputError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x} at column {column}); "
            "convert the file to UTF-8"
        ) from None


def decoded_block(block: bytes, path: Path | str, first_line: int) -> str:
    """A block of whole lines (line_blocks) starting at line `first_line` of `path`, as text_lines reads each of its
    lines: a byte-order mark at the start of any line skipped; bytes that are not UTF-8, and NUL bytes, an InputError
    naming file:line."""
    if codecs.BOM_UTF8 in block:
        block = block.replace(b"\n" + codecs.BOM_UTF8, b"\n")  # one mark per line, as text_lines skips it
        if block.startswith(codecs.BOM_UTF8):
            block = block[len(codecs.BOM_UTF8) :]
    return _decoded(block, path, first_line)


def decoded_line(raw: bytes, where: str) -> str:
    """One UTF-8 line's bytes as text, a leading byte-order mark skipped; other bytes and NUL bytes an InputError
    at `where` ('file:line')."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    nul = raw.find(b"\0")
    if nul >= 0:
        raise InputError(f"{where}: a NUL byte at column {nul + 1}: binary data, not text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"{where}: not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1}); "
            "convert the file to UTF-8"
        ) from None


_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def _not_gzip(path: Path, err: Exception) -> InputError:
    return InputError(f"{path}: broken or not gzip-compressed ({err})")


def unreadable(path, err: Exception) -> InputError:
    """The InputError for a read that failed midway: a broken gzip stream, or another OS error."""
    if isinstance(err, _GZIP_ERRORS):
        return _not_gzip(path, err)
    return InputError(f"{path}: cannot be read ({err})")


def text_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """(line number, line without its line end) of a UTF-8 text file, plain or gzip-compressed (.gz).

    A UTF-8 byte-order mark is skipped at the start of any line (two files joined with `cat` leave the second one's
    at the start of a line); bytes that are not UTF-8, and NUL bytes, are an InputError naming file:line.
    """
    path = Path(path)
    with open_binary(path) as handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                if raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                yield lineno, _decoded(raw, path, lineno).rstrip("\n\r")
        except _GZIP_ERRORS as err:
            raise _not_gzip(path, err) from None


def check_line_end(line: str, path: str | os.PathLike, lineno: int) -> None:
    """An InputError where a line of text_lines holds a carriage return: text_lines ends lines at LF (CRLF read),
    so a file whose lines end with CR alone (classic Mac OS) is one line, its queries or words merged into one."""
    if "\r" in line:
        raise cr_line_ends(path, lineno)


def cr_line_ends(path: str | os.PathLike, lineno: int) -> InputError:
    """The error of a file whose lines end with CR alone, found at `lineno` (check_line_end)."""
    return InputError(
        f"{path}:{lineno}: a carriage return (CR) inside the line: the file ends its lines with CR alone "
        "(classic Mac OS); convert them to LF"
    )


def read_text(path: str | os.PathLike) -> str:
    """A whole UTF-8 text file (plain or .gz) as a string, checked as text_lines checks it (BOM skipped)."""
    path = Path(path)
    with open_binary(path) as handle:
        try:
            data = handle.read()
        except _GZIP_ERRORS as err:
            raise _not_gzip(path, err) from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    return _decoded(data, path, 1)


def _parse_json(text: str, path, first_line: int, error: type[Exception]):
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"{path}:{first_line + err.lineno - 1}: invalid JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:  # nested far deeper than any real document (Python's parser gives up near 1,000 levels)
        raise error(f"{path}:{first_line}: JSON nested too deeply to read") from None


def read_json(path: str | os.PathLike, error: type[Exception] = InputError):
    """The value of a JSON file (UTF-8, BOM skipped); every failure is an `error` naming file:line."""
    try:
        text = read_text(path)
    except InputError as err:
        raise error(str(err)) from None
    return _parse_json(text, path, 1, error)


def json_record(line: str, path, lineno: int) -> dict:
    """One JSON-lines record: a JSON object, else an InputError naming file:line."""
    return json_object(line, f"{path}:{lineno}")


def json_object(text: str, where: str) -> dict:
    """`text` parsed as one JSON object, else an InputError at `where` (e.g. 'file:line')."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: invalid JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:  # nested far deeper than any real document (Python's parser gives up near 1,000 levels)
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    return record


def json_lines(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """(line number, JSON object) of every non-blank line of a JSON-lines file."""
    for lineno, line in text_lines(path):
        if line.strip():
            yield lineno, json_record(line, path, lineno)


def _json_type(value) -> str:
    return _JSON_TYPES.get(type(value).__name__, type(value).__name__)


def _field(record: dict, keys: tuple[str, ...], where: str, what: str) -> tuple[str, object]:
    for key in keys:
        if key in record:
            return key, record[key]
    raise InputError(f"{where}: no {what} field (one of {', '.join(keys)})")


def encodable(text: str, where: str, what: str) -> str:
    """`text` when it can be written as UTF-8; a lone surrogate (which JSON's \\uXXXX escapes can make) is an
    InputError at `where` naming `what`."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                f"{where}: {what} {text[:40]!r} holds a lone surrogate, which is not text (a broken \\uXXXX escape?)"
            ) from None
    return text


def record_text(record: dict, keys: tuple[str, ...], where: str, what: str) -> str:
    """The first of `keys` in a JSON record, which must be a string that can be written as UTF-8; else an
    InputError at `where`."""
    key, value = _field(record, keys, where, what)
    if not isinstance(value, str):
        raise InputError(f'{where}: {what} field "{key}" is {_json_type(value)}, not a string')
    return encodable(value, where, what)


def record_id(record: dict, keys: tuple[str, ...], where: str, what: str) -> str:
    """The first of `keys` in a JSON record as an id: a string, or an integer (whose text form is exact)."""
    key, value = _field(record, keys, where, what)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise InputError(f'{where}: {what} field "{key}" is {_json_type(value)}, not a string or an integer')
    return encodable(value, where, what)
