#!/usr/bin/env python3
"""Write an Oracle server parameter file (spfile) from pfile text, laid
out as src/formats/format-oracle.c describes it (and as the 12.1 spfile sample in
RedHatInsights/insights-core, insights/parsers/tests/test_oracle.py,
shows): 512-byte blocks; block 0 the file header; from block 1 on a
20-byte block header (type, format 0x22, block number, sequence 1,
flags 4, checksum), the parameter text running on across blocks (lines
cut at block boundaries) and a 4-byte tail (sequence, type, 0, 0). The
checksum makes the XOR of a block's 16-bit words 0, as in Oracle's
blocks. Used to build the fixtures under tests/hosts/*/u01 (the files
are committed; this script documents and rebuilds them):

    tests/tools/mkspfile.py TEXTFILE SPFILE [EMPTY_BLOCKS]
"""
import struct
import sys

BLOCK = 512
HEADER = 20
TAIL = 4
TYPE = 0x43  # the byte the sample's blocks begin with ("C")


def block(num, payload):
    b = bytearray(BLOCK)
    b[0] = TYPE
    b[1] = 0x22
    struct.pack_into("<I", b, 4, num)
    b[14] = 1
    b[15] = 4
    b[HEADER:HEADER + len(payload)] = payload
    b[BLOCK - 4] = 1
    b[BLOCK - 3] = TYPE
    x = 0
    for i in range(0, BLOCK, 2):
        x ^= struct.unpack_from("<H", b, i)[0]
    struct.pack_into("<H", b, 16, x)
    return bytes(b)


def main():
    text = open(sys.argv[1], "rb").read()
    empty = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    area = BLOCK - HEADER - TAIL
    header = bytearray(area)
    # block 0: the file's size in blocks (the sample shows a count there)
    nblocks = 1 + (len(text) + area - 1) // area + empty
    struct.pack_into("<I", header, 0, nblocks)
    out = [block(0, bytes(header))]
    for i in range(0, len(text), area):
        out.append(block(len(out), text[i:i + area]))
    while len(out) < nblocks:
        out.append(block(len(out), b""))
    open(sys.argv[2], "wb").write(b"".join(out))


main()
