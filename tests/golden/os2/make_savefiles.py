#!/usr/bin/env python3
"""Writes the golden TRACEFMT save files of the os2 end-to-end tests (deterministic bytes).

Run from this directory: python3 make_savefiles.py. Layouts: docs/os2-formats.md.
"""
import struct

KERNEL, NOT_KERNEL, NO_TS, DYNAMIC, INCOMPLETE = 0, 1, 2, 8, 16


class Stda:
    def __init__(self, size, new_format):
        self.new = new_format
        self.first = 0x1E if new_format else 0x0E
        self.last = size - 1
        self.b = bytearray(size)
        self.b[0:8] = b"SYSTRACE"
        if new_format:  # TRACE ON 2026-11-21 08:30:00.00, TRACE OFF 08:31:00.00
            self.b[0x0E:0x16] = struct.pack("<H6B", 2026, 11, 21, 8, 30, 0, 0)
            self.b[0x16:0x1E] = struct.pack("<H6B", 2026, 11, 21, 8, 31, 0, 0)
        self.next = self.first
        self.put(struct.pack("<BHHHB", NOT_KERNEL | NO_TS, 0, 0, 0, 0))  # end marker

    def put(self, data):
        for byte in data:
            self.b[self.next] = byte
            self.next = self.first if self.next == self.last else self.next + 1

    def record(self, major, minor, pid, flags, data, ts=(8, 30, 15, 50)):
        self.put(data)
        if not flags & NO_TS:
            self.put(bytes(ts) if self.new else bytes(ts[2:]))
        self.put(struct.pack("<BHHHB", flags, pid, minor, len(data), major))

    def image(self):
        struct.pack_into("<HHH", self.b, 8, self.first, self.last, self.next)
        return bytes(self.b)


def save(path, stda):
    header = struct.pack("<I4B2BHhB", len(stda), 8, 31, 0, 5, 21, 11, 2026, -60, 6)
    with open(path, "wb") as f:
        f.write(header + b"RASTRACEFMT" + stda)


def prefixed(data, status=0):
    return bytes([status]) + struct.pack("<H", len(data)) + data


def sample_records(s):
    dyn = NOT_KERNEL | DYNAMIC
    s.record(0x64, 0x0001, 1234, dyn, struct.pack("<I", 0x4B2C) + prefixed(b"C:\\CONFIG.SYS"))
    s.record(0x64, 0x7001, 1234, dyn, prefixed(struct.pack("<H", 5)), ts=(8, 30, 15, 51))
    s.record(0x64, 0x8001, 1234, dyn, prefixed(b"\0\0") + prefixed(b"\1\2\3\4\5"),
             ts=(8, 30, 15, 52))
    s.record(0x64, 0x8001, 77, dyn | INCOMPLETE,
             prefixed(struct.pack("<Q", 0xDEADBEEF), status=2), ts=(8, 30, 16, 0))
    s.record(0x64, 0x0099, 77, NOT_KERNEL, b"\x10\x20\x30", ts=(8, 30, 16, 1))  # no format
    s.record(0x30, 0x0001, 0, KERNEL | NO_TS, b"\xaa\xbb")  # no format file for major 0x30


new = Stda(0x200, True)
sample_records(new)
save("sample.stda", new.image())

ga = Stda(0x70, False)  # small: the records wrap and the oldest are overwritten
sample_records(ga)
save("sample_ga.stda", ga.image())

# Corruption: a trailer whose length cannot fit, older than two good records.
bad = Stda(0x100, False)
bad.record(0x64, 0x7001, 5, NOT_KERNEL | DYNAMIC, prefixed(b"\1\0"))
at = bad.next
bad.record(0x64, 0x7001, 5, NOT_KERNEL | DYNAMIC, prefixed(b"\2\0"))
bad.record(0x64, 0x7001, 5, NOT_KERNEL | DYNAMIC, prefixed(b"\3\0"))
image = bytearray(bad.image())
struct.pack_into("<H", image, at + 5 + 2 + 5, 0x7000)  # the middle record's length field
save("corrupt.stda", bytes(image))

# Truncation: the new-format sample cut after its records, before LAST.
with open("sample.stda", "rb") as f:
    whole = f.read()
with open("truncated.stda", "wb") as f:
    f.write(whole[:0x1A + 0xC0])  # after NEXT: every record is there, LAST is not
