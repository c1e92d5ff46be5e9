#!/usr/bin/env python3
"""Writes fuzz/corpus/insncount/'s counter files in the layout of
common/insncount-format.h (version 3): what the plugin writes, and the
shapes the parser must refuse. Run it again when the layout changes."""
import os
import struct

VCPUS, MARKS = 64, 64
HEADER = "<8sIIQQ5Q"             # magic, version, n_vcpus, n_marks, wait_ns, pad
VCPU = "<2QQQQ3Q"                # insns[2], pauses, spin_ns, last_pause_ns, pad
MARK = "<2QQQQQ"                 # insns[2], pauses, spin_ns, wait_ns, t_ns
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "insncount")


def counter_file(magic=b"KBINSN1\0", version=3, n_vcpus=1, vcpus=(), marks=(), wait_ns=0, n_marks=None):
    b = struct.pack(HEADER, magic, version, n_vcpus, len(marks) if n_marks is None else n_marks, wait_ns, 0, 0, 0, 0, 0)
    for i in range(VCPUS):
        user, kernel, pauses, spin = vcpus[i] if i < len(vcpus) else (0, 0, 0, 0)
        b += struct.pack(VCPU, user, kernel, pauses, spin, 0, 0, 0, 0)
    for i in range(MARKS):
        b += struct.pack(MARK, *(marks[i] if i < len(marks) else (0,) * 6))
    return b


files = {
    "all-zero": bytes(len(counter_file())),
    "bad-magic": counter_file(magic=b"KBINSN9\0"),
    "one-vcpu": counter_file(vcpus=[(1000, 50000, 12, 3400)], wait_ns=900000000),
    "two-vcpus": counter_file(n_vcpus=2, vcpus=[(10, 1000, 1, 5), (20, 2000, 0, 0)], wait_ns=1),
    "too-many-vcpus": counter_file(n_vcpus=VCPUS + 1),
    "wrap": counter_file(n_vcpus=2, vcpus=[(2**64 - 1, 2**64 - 1, 2**64 - 1, 2**64 - 1)] * 2),
    "marks": counter_file(vcpus=[(900, 90000, 400, 80000000)],
                          marks=[(100, 1000, 0, 0, 0, 10**9), (500, 61000, 400, 8 * 10**7, 3 * 10**8, 4 * 10**9),
                                 (400, 60000, 300, 10**6, 2 * 10**8, 3 * 10**9)]),
    "marks-past-slots": counter_file(marks=[(1, 2, 3, 4, 5, 6)], n_marks=2**64 - 1),
    "short": counter_file()[:100],
    # The guest PMU's record (guest/pmu.h), which the same target parses.
    "pmu": b"user=12 kernel=3400",
    "pmu-lost": b"lost",
    "pmu-huge": b"user=18446744073709551615 kernel=18446744073709551616",
}
for name, data in files.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
