#!/usr/bin/env python3
"""Writes the seed corpus of event_reader_fuzzer: small valid and broken logs of both layouts and
byte orders. Run from the repository root: python3 src/event/make_fuzz_corpus.py"""
import os
import struct

OUT = "fuzz/corpus/event_reader_fuzzer"


def pad(b, n):
    return b + b"\0" * (-len(b) % n)


def ev64(o, flags, hook, sub, words=(), b32=False, generic=None, tid=7, ts=9):
    length = len(generic[1]) if generic else (4 if b32 else 8) * len(words)
    out = struct.pack(o + "Q", flags << 48 | length << 32 | hook << 16 | sub)
    if generic:
        out += struct.pack(o + "Q", generic[0]) + pad(generic[1], 8)
    elif b32:
        out += pad(b"".join(struct.pack(o + "I", w) for w in words), 8)
    else:
        out += b"".join(struct.pack(o + "Q", w) for w in words)
    out += struct.pack(o + "Q", tid)
    if flags & 0x8000:
        out += struct.pack(o + "Q", ts)
    return out


def ev32(o, hook12, typ, data, words=(), generic=None, tid=7, ts=9):
    out = struct.pack(o + "I", hook12 << 20 | typ << 16 | data)
    if generic:
        out += struct.pack(o + "I", generic[0]) + pad(generic[1], 4)
    else:
        out += b"".join(struct.pack(o + "I", w) for w in words)
    out += struct.pack(o + "I", tid)
    if typ & 8:
        out += struct.pack(o + "I", ts)
    return out


def log64(o):
    return (struct.pack(o + "I", 0xEFDF1114)
            + ev64(o, 0x8000, 0x0010, 0, [1])
            + ev64(o, 0x0000, 0x1234, 5, [1, 2, 3, 4, 5])
            + ev64(o, 0xC000, 0x00A0, 0x25C,
                   generic=(0, struct.pack(o + "QQQ", 125, 3, 2)))
            + ev64(o, 0xA000, 0x5000, 5, [1, 2, 3, 4, 5], b32=True)
            + ev64(o, 0x6000, 0x5000, 6, generic=(0x12345678, b"hello")))


def log32(o):
    inner = struct.pack(o + "I", 0x50000005) + b"".join(struct.pack(o + "Q", w) for w in range(1, 6))
    gen = struct.pack(o + "I", 0x50000005) + struct.pack(o + "Q", 1) + b"hello\0"
    return (struct.pack(o + "I", 0xEFDF1112)
            + ev32(o, 0x001, 0x9, 0)
            + ev32(o, 0x500, 0xA, 5, [0x11111111])
            + ev32(o, 0x500, 0x6, 5, [1, 2, 3, 0, 0])
            + ev32(o, 0x500, 0x8, 5, generic=(0x50000005, b"hello"))
            + ev32(o, 0x00B, 0x8, len(inner), generic=(0x80000028, inner))
            + ev32(o, 0x00B, 0x0, len(gen), generic=(0x40000006, gen)))


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}
    for name, o in (("big", ">"), ("little", "<")):
        files[f"valid64_{name}"] = log64(o)
        files[f"valid32_{name}"] = log32(o)
        files[f"truncated64_{name}"] = log64(o)[:-5]
        files[f"truncated32_{name}"] = log32(o)[:-3]
        files[f"corrupt_type32_{name}"] = log32(o)[:16] + struct.pack(o + "II", 0x50030000, 7)
        files[f"corrupt_len64_{name}"] = log64(o)[:4] + struct.pack(o + "Q", 0x0000000C12340000)
        files[f"short_00b_{name}"] = (struct.pack(o + "I", 0xEFDF1112)
                                      + ev32(o, 0x00B, 0x0, 2, generic=(0x80000028, b"\x50\0")))
    files["not_a_log"] = b"\x7fELF\x02\x01\x01"
    files["magic_only"] = b"\x14\x11\xdf\xef"
    files["short_magic"] = b"\xef\xdf"
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
