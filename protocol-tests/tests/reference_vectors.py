#!/usr/bin/env python3
"""Independent re-implementation of PROTOCOL.md sections 1-4 and 6-8 (hashes,
HMACs, Merkle roots, roll seeds, dice) from the document alone, using only the
Python 3 standard library. Checks every hash/dice vector of PROTOCOL.md that it
can compute (Ed25519 signatures excepted). Not run by CI; run by hand:

    python3 protocol/tests/reference_vectors.py
"""
import hashlib, hmac, pathlib, re, struct, sys

DOC = pathlib.Path(__file__).resolve().parents[2] / "PROTOCOL.md"
vec = dict(re.findall(r"^vector ([^:]+): (.*)$", DOC.read_text(), re.M))

H = lambda b: hashlib.sha256(b).digest()
u8 = lambda v: bytes([v]); u32 = lambda v: struct.pack(">I", v); u64 = lambda v: struct.pack(">Q", v)
var = lambda b: struct.pack(">I", len(b)) + b
def tup(tag, *fields): return var(tag.encode()) + b"".join(fields)
mac = lambda k, m: hmac.new(k, m, hashlib.sha256).digest()
x = lambda name: bytes.fromhex(vec[name])

def mth(leaves):
    if not leaves: return H(b"")
    if len(leaves) == 1: return leaves[0]
    k = 1
    while k * 2 < len(leaves): k *= 2
    return H(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))

got = {}
game = x("input.game_id")
got["sha256.empty"] = H(b"")
# 3. layout
ls = x("input.layout_seed")
salt = lambda loc, v: mac(ls, tup("hexveil/v1/salt", game, u8(0), var(b"ap"), var(loc), u32(v)))
leafd = lambda loc, v, c: tup("hexveil/v1/leaf", game, u8(0), var(b"ap"), var(loc), u32(v), c, salt(loc, v))
leaf = lambda loc, v, c: H(b"\x00" + leafd(loc, v, c))
mine, none, low = bytes.fromhex("0108000000000000"), bytes(8), bytes.fromhex("0104000000000000")
got["layout.salt.4E6.v0"] = salt(b"4E6", 0)
got["layout.leaf_data.4E6.v0"] = leafd(b"4E6", 0, mine)
got["layout.leaf_hash.4E6.v0"] = leaf(b"4E6", 0, mine)
root = mth([leaf(b"4E6", 0, mine), leaf(b"4E7", 0, none), leaf(b"board4", 0, none)])
got["layout.root"] = root
got["layout.root_sig_bytes"] = tup("hexveil/v1/root-sig", game, u8(0), var(b"ap"), u64(3), root)
got["layout.transition.4E6.new_salt"] = salt(b"4E6", 1)
got["layout.transition.4E6.new_root"] = mth([leaf(b"4E6", 1, low), leaf(b"4E7", 0, none), leaf(b"board4", 0, none)])
# 4. notes
ns = x("input.notes_seed")
nsalt = lambda s: mac(ns, tup("hexveil/v1/note-salt", game, u8(1), u64(s)))
got["note.salt.B.3"] = nsalt(3)
got["note.hash.B.3"] = H(tup("hexveil/v1/note", game, u8(1), u64(3), b"DC 4E6 vehicle\0\0", nsalt(3)))
got["note.hash.B.4.null"] = H(tup("hexveil/v1/note", game, u8(1), u64(4), bytes(16), nsalt(4)))
# 6. envelope and head chain (signatures taken from the document)
g0 = H(tup("hexveil/v1/genesis", game))
got["head.genesis"] = g0
env = tup("hexveil/v1/action-sig", struct.pack(">H", 1), game, x("identity.public.A"), u64(0), g0, var(b"move 4E6"))
got["envelope.signing_bytes"] = env
eh = H(env)
got["envelope.entry_hash"] = eh
h1 = H(tup("hexveil/v1/head", g0, eh))
got["head.1"] = h1
got["receipt.signing_bytes"] = tup("hexveil/v1/server-sig", game, u64(0), eh, h1)
# 7. pads and roll seeds
r = []
for p, name in enumerate(["A", "B", "server"]):
    s = x(f"input.pad_seed.{name}")
    val = lambda i: mac(s, tup("hexveil/v1/pad", game, u8(p), u32(0), u32(i)))
    root = mth([H(b"\x00" + tup("hexveil/v1/pad-leaf", game, u8(p), u32(0), u32(i), val(i))) for i in range(8)])
    got[f"pad.root.{name}"] = root
    got[f"pad.r.{name}.0.3"] = val(3)
    if p == 0: got["pad.sig_bytes.A"] = tup("hexveil/v1/pad-sig", game, u8(0), u32(0), u32(8), root)
    r.append(val(3))
seed = H(tup("hexveil/v1/roll", game, u64(3), eh, *r))
secret = H(tup("hexveil/v1/secret-roll", game, u64(3), eh, *r))
got["roll.seed.3"], got["secret_roll.seed.3"] = seed, secret

# 8. dice: ChaCha20 block function (RFC 7539), key = seed, nonce 0, counter from 0
def words(key):
    rotl = lambda v, c: ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))
    def qr(s, a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 7)
    ctr = 0
    while True:
        st = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *struct.unpack("<8I", key), ctr & 0xFFFFFFFF, ctr >> 32, 0, 0]
        w = st[:]
        for _ in range(10):
            qr(w, 0, 4, 8, 12); qr(w, 1, 5, 9, 13); qr(w, 2, 6, 10, 14); qr(w, 3, 7, 11, 15)
            qr(w, 0, 5, 10, 15); qr(w, 1, 6, 11, 12); qr(w, 2, 7, 8, 13); qr(w, 3, 4, 9, 14)
        yield from ((a + b) & 0xFFFFFFFF for a, b in zip(w, st))
        ctr += 1
def dice(key, faces):
    w, out = words(key), []
    for f in faces:
        v = next(w)
        while v >= (2**32 // f) * f: v = next(w)
        out.append(str(v % f + (1 if f == 6 else 0)))
    return out
d = dice(seed, [6, 6, 10, 10])
got["roll.3.dr"], got["roll.3.then_percentile"] = " ".join(d[:2]), " ".join(d[2:])
got["secret_roll.3.dr"] = dice(secret, [6])[0]
z = dice(bytes(32), [6] * 12 + [10] * 6)
got["dice.zero_seed.d6x12"], got["dice.zero_seed.then_d10x6"] = " ".join(z[:12]), " ".join(z[12:])

bad = 0
for k, v in got.items():
    v = v.hex() if isinstance(v, bytes) else v
    if vec.get(k) != v:
        bad += 1; print(f"MISMATCH {k}: doc {vec.get(k)} python {v}")
print(f"{len(got) - bad} passed, {bad} failed")
sys.exit(1 if bad else 0)
