#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Remeasures the ONNX Runtime figures of src/test/resources/ort/ with ../shared/tools/ort-arena.py
# and diffs them (figures.py says how). Makes the venv it needs, ONNX Runtime 1.30.0 with onnx and
# numpy, in target/ort-venv (git-ignored) on first use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/target/ort-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import onnxruntime, onnx, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q onnxruntime==1.30.0 onnx numpy
fi
exec "$venv/bin/python" "$root/benchmarks/ort/figures.py" "$@"
