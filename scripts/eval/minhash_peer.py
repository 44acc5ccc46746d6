"""A peer for the short-text kinds: datasketch MinHashLSH, as a newcomer would use it.

Reads JSON lines {"id", "content"} on stdin (stream order), writes one JSON line per document
{"id", "duplicateOf"}: for each document the LSH index is queried; the candidate with the highest
estimated Jaccard (ties: the earliest) is its original, or none when the query is empty. Every
document is then inserted. Shingles (--shingles):
  word3  jieba.lcut (HMM on) of the text, whitespace tokens dropped, word 3-grams (fewer than 3
         words: the words joined as one shingle)
  char5  lower-cased text without whitespace, character 5-grams (shorter: the whole text)
  python minhash_peer.py --shingles word3 --threshold 0.5 [--num-perm 128]
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
    ap.add_argument("--shingles", choices=["word3", "char5"], required=True)
    ap.add_argument("--threshold", type=float, required=True)
    ap.add_argument("--num-perm", type=int, default=128)
    args = ap.parse_args()
    jieba.setLogLevel(logging.WARNING)
    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)
    order = {}
    sketches = {}
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        doc = json.loads(line)
        m = MinHash(num_perm=args.num_perm)
        m.update_batch([s.encode("utf8") for s in shingles(doc["content"], args.shingles)])
        best = None
        for c in lsh.query(m):
            key = (m.jaccard(sketches[c]), -order[c])
            if best is None or key > best[0]:
                best = (key, c)
        out.write(json.dumps({"id": doc["id"], "duplicateOf": None if best is None else best[1]}, ensure_ascii=False) + "\n")
        order[doc["id"]] = len(order)
        sketches[doc["id"]] = m
        lsh.insert(doc["id"], m)


if __name__ == "__main__":
    main()
