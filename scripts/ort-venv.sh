#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the Python environment the ONNX Runtime tools of benchmarks/ort/ run in: a venv in
# target/ort-venv (git-ignored; benchmarks/ort/figures.sh makes the same one) with the ONNX Runtime
# the checked-in figures were measured with, onnx and numpy. The tools also need ../shared beside
# the repository (the models, and tools/ort-arena.py, the shared measuring tool). `mvn clean`
# removes the venv; run this again after it.
#
#   scripts/ort-venv.sh                 make target/ort-venv (or bring it up to date), then check it
#   ORT_VERSION=1.30.0 scripts/ort-venv.sh    (the default; another version for a comparison)
#   target/ort-venv/bin/python benchmarks/ort/compare.py
#
# Needs python3 with its venv module (Debian: python3-venv) and a package index pip can reach.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="${ORT_VERSION:-1.30.0}"
venv=target/ort-venv
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "ort-venv: $python is missing; install Python 3 or set PYTHON" >&2; exit 1; }

if [[ ! -x $venv/bin/python ]]; then
    mkdir -p target
    "$python" -m venv "$venv" || { echo "ort-venv: '$python -m venv' failed; install its venv module (Debian: python3-venv)" >&2; exit 1; }
fi
"$venv/bin/python" -m pip install --quiet "onnxruntime==$version" onnx numpy
"$venv/bin/python" -c 'import onnxruntime, onnx, numpy; print("ort-venv: target/ort-venv has onnxruntime", onnxruntime.__version__, "onnx", onnx.__version__, "numpy", numpy.__version__)'
