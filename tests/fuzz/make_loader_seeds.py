#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_loader (tests/fuzz/corpus/fuzz_loader) from one real
fake vendor .so, e.g. build/tests/fake_vendor/subset/libopkit_vendor_subset.so:

  empty              an empty file
  truncated-64       the vendor's first 64 bytes (the ELF header alone)
  truncated-4096     its first 4096 bytes (headers, segments cut off)
  foreign-aarch64    the whole vendor with e_machine changed to EM_AARCH64
  foreign-elfclass32 the whole vendor with e_ident[EI_CLASS] changed to ELFCLASS32
  bad-phoff          the whole vendor with e_phoff pointing past the end of the file
  random-4096        4096 bytes from a fixed-seed generator
  elf-magic-only     "\\x7fELF"
  valid-vendor       the whole vendor, unchanged

Usage: tests/fuzz/make_loader_seeds.py VENDOR.so OUT_DIR
"""
import os
import random
import struct
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{src}: not a 64-bit little-endian ELF file")
    os.makedirs(out, exist_ok=True)

    def patched(offset, fmt, value):
        b = bytearray(data)
        struct.pack_into(fmt, b, offset, value)
        return bytes(b)

    seeds = {
        "empty": b"",
        "truncated-64": data[:64],
        "truncated-4096": data[:4096],
        "foreign-aarch64": patched(18, "<H", 183),  # e_machine = EM_AARCH64
        "foreign-elfclass32": patched(4, "<B", 1),  # EI_CLASS = ELFCLASS32
        "bad-phoff": patched(32, "<Q", len(data) + 4096),  # e_phoff past the end
        "random-4096": random.Random(20261123).randbytes(4096),
        "elf-magic-only": b"\x7fELF",
        "valid-vendor": data,
    }
    for name, content in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(content)
    print(f"wrote {len(seeds)} seeds to {out}")


if __name__ == "__main__":
    main()
