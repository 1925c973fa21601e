"""The collective fingerprint of interpose/core/fingerprint_hash.h, written again from its description
in Python, for tests that check the capture side's values against an independent computation:
8-byte little-endian words w_i (the last zero-padded), the sum of term(w_i, i) mod 2^64, then
finish(sum, length)."""
import struct

MASK = (1 << 64) - 1


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def fingerprint(data: bytes) -> int:
    padded = data + b"\0" * (-len(data) % 8)
    total = 0
    for i, (word,) in enumerate(struct.iter_unpack("<Q", padded)):
        total = (total + mix((word + mix((i + 0x9E3779B97F4A7C15) & MASK)) & MASK)) & MASK
    return mix(total ^ mix(len(data) ^ 0xD1B54A32D192ED03))


def probe_bytes(n: int) -> bytes:
    """fingerprint_probe's buffer: byte i is (i * 131 + 7) mod 256."""
    return bytes((i * 131 + 7) & 0xFF for i in range(n))
