// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.util.List;

/**
 * From the encoder's token vectors to one unit vector per text, in LangChain4j's order of
 * operations (so its float rounding too): pool each partition, average the partitions weighted by
 * their token counts, normalize.
 */
final class Pooling {
    private Pooling() {
    }

    /** One partition's vector: its first token's ({@code CLS}) or the mean of its first {@code length}. */
    static float[] pool(float[][] vectors, int length, PoolingMode mode) {
        return switch (mode) {
            case CLS -> vectors[0].clone();
            case MEAN -> mean(vectors, length);
        };
    }

    private static float[] mean(float[][] vectors, int length) {
        float[] sum = new float[vectors[0].length];
        for (int t = 0; t < length; t++) {
            float[] vector = vectors[t];
            for (int j = 0; j < sum.length; j++) {
                sum[j] += vector[j];
            }
        }
        for (int j = 0; j < sum.length; j++) {
            sum[j] /= length;
        }
        return sum;
    }

    /** The partitions' vectors averaged by weight; a single partition's vector as it is. */
    static float[] weightedAverage(List<float[]> vectors, int[] weights) {
        if (vectors.size() == 1) {
            return vectors.get(0);
        }
        float[] average = new float[vectors.get(0).length];
        int total = 0;
        for (int i = 0; i < vectors.size(); i++) {
            total += weights[i];
            float[] vector = vectors.get(i);
            for (int j = 0; j < average.length; j++) {
                average[j] += vector[j] * weights[i];
            }
        }
        for (int j = 0; j < average.length; j++) {
            average[j] /= total;
        }
        return average;
    }

    /** The vector divided by its Euclidean norm. */
    static float[] normalize(float[] vector) {
        float sumOfSquares = 0;
        for (float v : vector) {
            sumOfSquares += v * v;
        }
        float norm = (float) Math.sqrt(sumOfSquares);
        float[] unit = new float[vector.length];
        for (int i = 0; i < vector.length; i++) {
            unit[i] = vector[i] / norm;
        }
        return unit;
    }
}
