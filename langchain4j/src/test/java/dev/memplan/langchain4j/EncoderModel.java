// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.nio.file.Files;
import java.nio.file.Path;

/** The encoders the tests embed with, unpacked from LangChain4j's model jars by the build. */
enum EncoderModel {
    MINILM_FP32("all-minilm-l6-v2.onnx", "all-minilm-l6-v2-tokenizer.json", PoolingMode.MEAN),
    BGE_INT8("bge-small-en-v1.5-q.onnx", "bge-small-en-v1.5-q-tokenizer.json", PoolingMode.CLS);

    private final String model;
    private final String tokenizer;
    private final PoolingMode pooling;

    EncoderModel(String model, String tokenizer, PoolingMode pooling) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.pooling = pooling;
    }

    Path model() {
        return file(model);
    }

    Path tokenizer() {
        return file(tokenizer);
    }

    PoolingMode pooling() {
        return pooling;
    }

    MemplanEmbeddingModel.Builder builder() {
        return MemplanEmbeddingModel.builder().modelPath(model()).tokenizerPath(tokenizer()).poolingMode(pooling);
    }

    private static Path file(String name) {
        String dir = System.getProperty("memplan.langchain4j.models");
        if (dir == null) {
            throw new IllegalStateException("memplan.langchain4j.models is not set; run the tests through Maven");
        }
        Path file = Path.of(dir, name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " is missing; mvn generate-test-resources unpacks it");
        }
        return file;
    }
}
