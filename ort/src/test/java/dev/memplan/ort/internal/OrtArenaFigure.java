// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * ONNX Runtime's own arena figure for one request, measured on the ORT Java of the class path as
 * {@code ../shared/tools/ort-arena.py} measures it: level all, one intra-op thread, arena and memory
 * pattern on, two runs with the first's outputs held; MaxInUse after less InUse before.
 */
public final class OrtArenaFigure {
    private OrtArenaFigure() {
    }

    /** {@return ORT's arena figure for a request of these input shapes} */
    public static long measure(Path model, Map<String, long[]> shapes) throws Exception {
        return measure(model, shapes, Map.of());
    }

    /**
     * {@return ORT's arena figure for a request of these input shapes, each input named in
     * {@code values} filled with its value (a sample rate other than 16000)}
     */
    public static long measure(Path model, Map<String, long[]> shapes, Map<String, Long> values) throws Exception {
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setIntraOpNumThreads(1);
            o.setSessionLogLevel(ai.onnxruntime.OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            try (OrtSession s = OrtTestModels.environment().createSession(model.toString(), o)) {
                Map<String, OnnxTensor> inputs = new HashMap<>();
                try {
                    for (Map.Entry<String, NodeInfo> e : s.getInputInfo().entrySet()) {
                        inputs.put(e.getKey(), input(e.getKey(), (TensorInfo) e.getValue().getInfo(),
                                shapes.get(e.getKey()), values.get(e.getKey())));
                    }
                    long before = OrtCApi.arenaStats(s)[0];
                    try (OrtSession.Result first = s.run(inputs); OrtSession.Result second = s.run(inputs)) {
                        return OrtCApi.arenaStats(s)[1] - before;
                    }
                } finally {
                    inputs.values().forEach(OnnxTensor::close);
                }
            }
        }
    }

    /**
     * {@code ort-arena.py}'s inputs: token ids small, masks ones, token types zeros, a sample rate 16000, floats noise;
     * an integer input with a {@code value} holds that value in every element.
     */
    private static OnnxTensor input(String name, TensorInfo info, long[] shape, Long value) throws Exception {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        ByteBuffer data = ByteBuffer.allocateDirect(Math.toIntExact(n * info.type.size)).order(ByteOrder.nativeOrder());
        Random random = new Random(7);
        for (long i = 0; i < n; i++) {
            if (info.type == OnnxJavaType.FLOAT) {
                data.putFloat(random.nextFloat() - 0.5f);
            } else if (info.type == OnnxJavaType.INT64) {
                data.putLong(value != null ? value : name.equals("sr") ? 16_000 : name.contains("mask") ? 1
                        : name.contains("type") ? 0 : 1 + random.nextInt(100));
            } else if (info.type == OnnxJavaType.INT32) {
                data.putInt(value != null ? Math.toIntExact(value) : name.contains("mask") ? 1
                        : name.contains("type") ? 0 : 1 + random.nextInt(100));
            } else {
                throw new IllegalArgumentException("input " + name + " of type " + info.type + " is not fed here");
            }
        }
        data.rewind();
        return OnnxTensor.createTensor(OrtTestModels.environment(), data, shape, info.type);
    }
}
