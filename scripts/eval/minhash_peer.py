"""A peer for the short-text kinds: datasketch MinHashLSH, as a newcomer would use it.

Reads JSON lines {"id", "content"} on stdin (stream order), writes one JSON line per document
{"id", "<peer>": duplicateOf, ...}: for each peer (--peer shingles:threshold, repeatable; one
process for all, so Python and jieba start once) its LSH index is queried; the candidate with the
highest estimated Jaccard (ties: the earliest) is the document's original, or none when the query
is empty. Every document is then inserted. Shingles:
  word3  jieba.lcut (HMM on) of the text, whitespace tokens dropped, word 3-grams (fewer than 3
         words: the words joined as one shingle)
  char5  lower-cased text without whitespace, character 5-grams (shorter: the whole text)
  python minhash_peer.py --peer word3:0.5 --peer char5:0.7 [--num-perm 128]
"""
import argparse
import json
import logging
import sys

import jieba
from datasketch import MinHash, MinHashLSH


def shingles(text: str, kind: str) -> set:
    if kind == "word3":
        words = [w for w in jieba.lcut(text) if w.strip()]
        if len(words) < 3:
            return {"".join(words)} if words else set()
        return {"\u0001".join(words[i:i + 3]) for i in range(len(words) - 2)}
    s = "".join(text.lower().split())
    if len(s) <= 5:
        return {s} if s else set()
    return {s[i:i + 5] for i in range(len(s) - 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", action="append", required=True, help="shingles:threshold, e.g. word3:0.5")
    ap.add_argument("--num-perm", type=int, default=128)
    args = ap.parse_args()
    jieba.setLogLevel(logging.WARNING)
    peers = []
    for p in args.peer:
        kind, threshold = p.split(":")
        if kind not in ("word3", "char5"):
            raise SystemExit(f"--peer: unknown shingles {kind}")
        peers.append((p, kind, MinHashLSH(threshold=float(threshold), num_perm=args.num_perm), {}))
    order = {}
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        doc = json.loads(line)
        row = {"id": doc["id"]}
        for name, kind, lsh, sketches in peers:
            m = MinHash(num_perm=args.num_perm)
            m.update_batch([s.encode("utf8") for s in shingles(doc["content"], kind)])
            best = None
            for c in lsh.query(m):
                key = (m.jaccard(sketches[c]), -order[c])
                if best is None or key > best[0]:
                    best = (key, c)
            row[name] = None if best is None else best[1]
            sketches[doc["id"]] = m
            lsh.insert(doc["id"], m)
        order[doc["id"]] = len(order)
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
