#!/usr/bin/env python3
"""A Python verifier of the provably-fair chain (SPEC.md), standard library only.

It takes the same approach as the operator's published JavaScript verifier: one
fixed-length SHAKE256 digest per round (80 u32 for Keno, 2 for Roulette) that the sampler
reads integers from. It exists to show that hashlib reproduces the vectors and to measure
how fast a straightforward Python verifier is.

    python3 verifier.py check FILE
        Reproduce every row of a vectors CSV; exit 1 on any mismatch, 2 on bad input.
    python3 verifier.py bench GAME SERVER CLIENT START COUNT
        Play COUNT rounds from nonce START on one thread and print rounds/s.
"""

import csv
import hashlib
import struct
import sys
import time

# words: length of the fixed digest in u32; pockets: P for roulette.
GAMES = {
    "keno": {"words": 80},
    "roulette-european": {"words": 2, "pockets": 37},
    "roulette-american": {"words": 2, "pockets": 38},
}

COLUMNS = [
    "game", "server_seed", "client_seed", "nonce", "commitment",
    "round_signature", "draw_order", "result", "u32_used",
]

# The reference verifier is JavaScript: its nonces are doubles, exact only up to 2^53 - 1.
MAX_REFERENCE_NONCE = 2**53 - 1


class WordReader:
    """Big-endian u32 words from a fixed-length SHAKE256 digest of the signature.

    If rejection sampling exhausts the digest, a digest twice as long replaces it: XOF
    output is prefix-stable, so the words already read are unchanged and reading goes on.
    """

    def __init__(self, signature, words):
        self.message = signature.encode("ascii")  # the 64-char hex string, not raw bytes
        self.words = struct.unpack(f">{words}I", hashlib.shake_256(self.message).digest(words * 4))
        self.used = 0

    def next(self):
        if self.used == len(self.words):
            longer = len(self.words) * 2
            self.words = struct.unpack(
                f">{longer}I", hashlib.shake_256(self.message).digest(longer * 4)
            )
        value = self.words[self.used]
        self.used += 1
        return value

    def sample(self, p):
        # Python integers do not overflow, so 2^32 can be written as it is.
        limit = (2**32 // p) * p
        r = self.next()
        while r >= limit:
            r = self.next()
        return r % p


def round_signature(server, client, nonce):
    return hashlib.sha3_256(f"{server}:{client}:{nonce}".encode("utf-8")).hexdigest()


def play_round(game, signature):
    """Returns (draw_order, result, words_used) for one round."""
    spec = GAMES[game]
    reader = WordReader(signature, spec["words"])
    if game == "keno":
        remaining = list(range(1, 41))
        draw_order = [remaining.pop(reader.sample(len(remaining))) for _ in range(10)]
        return draw_order, " ".join(map(str, sorted(draw_order))), reader.used
    pocket = reader.sample(spec["pockets"])
    return [pocket], "00" if pocket == 37 else str(pocket), reader.used


def parse_nonce(text, what="nonce"):
    # Only the plain decimal form the reference produces: no sign, spaces or leading zeros.
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
        raise ValueError(f"{what} '{text}' is not a plain decimal integer")
    value = int(text)
    if value > MAX_REFERENCE_NONCE:
        raise ValueError(f"{what} '{text}' is above 2^53 - 1: no reference behaviour there")
    return value


def check(path):
    rows = mismatches = 0
    # newline="" lets the csv module see line breaks inside quoted fields; utf-8-sig drops a BOM.
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, strict=True)
        header = next(reader, None)
        if header != COLUMNS:
            raise ValueError(f"{path}: header must be {','.join(COLUMNS)}")
        for fields in reader:
            line = reader.line_num  # the line the record ends on
            if not fields:
                continue
            if len(fields) != len(COLUMNS):
                raise ValueError(f"{path} line {line}: {len(fields)} fields, expected {len(COLUMNS)}")
            row = dict(zip(COLUMNS, fields))
            if row["game"] not in GAMES:
                raise ValueError(f"{path} line {line}: unknown game '{row['game']}'")
            nonce = parse_nonce(row["nonce"])
            signature = round_signature(row["server_seed"], row["client_seed"], nonce)
            draw_order, result, used = play_round(row["game"], signature)
            computed = {
                "commitment": hashlib.sha3_256(row["server_seed"].encode("utf-8")).hexdigest(),
                "round_signature": signature,
                "draw_order": " ".join(map(str, draw_order)),
                "result": result,
                "u32_used": str(used),
            }
            rows += 1
            for name, value in computed.items():
                if row[name] != value:
                    mismatches += 1
                    print(f"line {line}: {name}: file has '{row[name]}', computed '{value}'")
    print(f"python hashlib: {path}: {rows} rounds checked, {mismatches} mismatches")
    return mismatches == 0


def bench(game, server, client, start, count):
    if game not in GAMES:
        raise ValueError(f"unknown game '{game}'")
    # Tally outcomes so that two implementations' runs over the same nonces can be
    # compared by eye (the checksum matches verifier.js's for the same arguments).
    tally = [0] * 41
    extra_words = 0
    minimum_words = 10 if game == "keno" else 1
    t0 = time.perf_counter()
    for nonce in range(start, start + count):
        draw_order, _, used = play_round(game, round_signature(server, client, nonce))
        for n in draw_order:
            tally[n] += 1
        extra_words += used - minimum_words
    seconds = time.perf_counter() - t0
    checksum = 0
    for k, n in enumerate(tally):
        checksum = (checksum * 31 + n * (k + 1)) % 1000000007
    print(
        f"impl=python-hashlib game={game} rounds={count} seconds={seconds:.3f} "
        f"rounds_per_s={round(count / seconds)} rejected_words={extra_words} tally_checksum={checksum}"
    )


def main(argv):
    try:
        if len(argv) == 2 and argv[0] == "check":
            return 0 if check(argv[1]) else 1
        if len(argv) == 6 and argv[0] == "bench":
            start = parse_nonce(argv[4], "START")
            count = parse_nonce(argv[5], "COUNT")
            if start + count > MAX_REFERENCE_NONCE:
                raise ValueError("START + COUNT exceeds 2^53 - 1")
            bench(argv[1], argv[2], argv[3], start, count)
            return 0
    except (OSError, ValueError, csv.Error) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(
        "usage: python3 verifier.py check FILE\n"
        "       python3 verifier.py bench GAME SERVER CLIENT START COUNT",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
