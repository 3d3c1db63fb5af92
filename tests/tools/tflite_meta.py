"""The metadata of a .tflite file, read straight from its flatbuffer (no schema package needed).

`metadata_of(data)` returns the model's description, each `metadata` entry as (name, bytes of its
buffer) and the bytes of each buffer `metadata_buffer` names. A buffer's bytes are its `data`
vector or, for a file with external buffers, the `size` bytes at `offset` from the file's start;
an index past the buffer list (which LiteRT ignores) is kept as a string naming the index.
Used by check_roundtrip.py to require that a rewrite keeps the metadata byte for byte.
"""

from __future__ import annotations

import struct

# Field numbers in TFLite's schema.fbs.
MODEL_DESCRIPTION, MODEL_BUFFERS, MODEL_METADATA_BUFFER, MODEL_METADATA = 3, 4, 5, 6
BUFFER_DATA, BUFFER_OFFSET, BUFFER_SIZE = 0, 1, 2
METADATA_NAME, METADATA_BUFFER = 0, 1


class MetaError(Exception):
    """The file is not a flatbuffer this reader can follow."""


def _u32(d: bytes, p: int) -> int:
    if p < 0 or p + 4 > len(d):
        raise MetaError(f"offset {p} out of the file ({len(d)} bytes)")
    return struct.unpack_from("<I", d, p)[0]


def _field(d: bytes, table: int, i: int) -> int | None:
    """The absolute position of field i of the table at `table`, None when absent."""
    vt = table - struct.unpack_from("<i", d, table)[0]
    vsize = struct.unpack_from("<H", d, vt)[0]
    if 4 + 2 * i >= vsize:
        return None
    off = struct.unpack_from("<H", d, vt + 4 + 2 * i)[0]
    return table + off if off else None


def _vector(d: bytes, table: int, i: int) -> tuple[int, int]:
    """(start of the elements, length) of vector field i; (0, 0) when absent."""
    p = _field(d, table, i)
    if p is None:
        return 0, 0
    v = p + _u32(d, p)
    return v + 4, _u32(d, v)


def _tables(d: bytes, table: int, i: int) -> list[int]:
    start, n = _vector(d, table, i)
    return [start + 4 * k + _u32(d, start + 4 * k) for k in range(n)]


def _bytes(d: bytes, table: int, i: int) -> bytes:
    start, n = _vector(d, table, i)
    if start + n > len(d):
        raise MetaError("a vector runs past the end of the file")
    return d[start:start + n]


def _scalar(d: bytes, table: int, i: int, fmt: str) -> int:
    p = _field(d, table, i)
    return struct.unpack_from(fmt, d, p)[0] if p is not None else 0


def _buffer_bytes(d: bytes, buffers: list[int], index: int) -> bytes | str:
    if not 0 <= index < len(buffers):
        # LiteRT ignores such an entry (AI Edge Quantizer writes them); a rewrite must keep it as
        # it is, so the index stands for it.
        return f"buffer {index}, past the model's {len(buffers)} buffers"
    b = buffers[index]
    offset, size = _scalar(d, b, BUFFER_OFFSET, "<Q"), _scalar(d, b, BUFFER_SIZE, "<Q")
    if offset > 1:
        if offset + size > len(d):
            raise MetaError(f"buffer {index} lies past the end of the file")
        return d[offset:offset + size]
    return _bytes(d, b, BUFFER_DATA)


def metadata_of(d: bytes) -> dict:
    """The description, metadata entries and metadata_buffer contents of the model in `d`."""
    try:
        root = _u32(d, 0)
        buffers = _tables(d, root, MODEL_BUFFERS)
        entries = []
        for m in _tables(d, root, MODEL_METADATA):
            name = _bytes(d, m, METADATA_NAME).decode("utf-8", errors="replace")
            entries.append((name, _buffer_bytes(d, buffers, _scalar(d, m, METADATA_BUFFER, "<I"))))
        start, n = _vector(d, root, MODEL_METADATA_BUFFER)
        meta_buffers = [_buffer_bytes(d, buffers, struct.unpack_from("<i", d, start + 4 * k)[0]) for k in range(n)]
        return {
            "description": _bytes(d, root, MODEL_DESCRIPTION).decode("utf-8", errors="replace"),
            "metadata": entries,
            "metadata_buffer": meta_buffers,
        }
    except struct.error as e:
        raise MetaError(str(e)) from None
