"""Main text of HTML pages by trafilatura, as an independent reference for scripts/extract/compare.ts.

Reads JSON lines {"id", "html"} on stdin, writes JSON lines {"id", "text", "ms"} on stdout.
Optional for the eval: `pip install trafilatura`.
"""
import json
import sys
import time

import trafilatura


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        page = json.loads(line)
        t0 = time.perf_counter()
        text = trafilatura.extract(page["html"], include_comments=False, include_tables=True, favor_precision=False) or ""
        ms = (time.perf_counter() - t0) * 1000
        sys.stdout.write(json.dumps({"id": page["id"], "text": text, "ms": ms}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
