// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.onnx.symbols.TensorInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a model in ONNX Runtime with profiling on and graph optimizations off, and reads from the
 * profile what each node produced: ORT writes one "Node" event per kernel run, whose args hold
 * {@code output_type_shape}: a list with one {@code {"<type>": [dims]}} object per output.
 */
final class OrtProfile {
    private OrtProfile() {
    }

    /** One kernel run: the node's name and op, and per output its ORT type name and dims. */
    record NodeRun(String nodeName, String opName, List<String> types, List<long[]> shapes) {
    }

    /**
     * ORT's environment, made on a 16 MB stack: ORT Java 1.29 crashes a 1 MB stack making it, and
     * the tests run on one ({@code -Xss1m}).
     */
    private static OrtEnvironment environment() {
        OrtEnvironment[] made = new OrtEnvironment[1];
        Thread maker = new Thread(null, () -> made[0] = OrtEnvironment.getEnvironment(), "test-ort-environment", 16L << 20);
        maker.start();
        try {
            maker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while ONNX Runtime's environment was made", e);
        }
        if (made[0] == null) {
            throw new IllegalStateException("ONNX Runtime's environment could not be made (see the thread's error above)");
        }
        return made[0];
    }

    static List<NodeRun> run(Path model, Map<String, long[]> inputShapes, Map<String, Double> fills)
            throws OrtException, IOException {
        OrtEnvironment env = environment();
        Path dir = Files.createTempDirectory("memplan-ort");
        List<OnnxTensor> tensors = new ArrayList<>();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT);
            o.enableProfiling(dir.resolve("profile").toString());
            try (OrtSession s = env.createSession(model.toString(), o)) {
                Map<String, OnnxTensor> in = new HashMap<>();
                for (var e : s.getInputInfo().entrySet()) {
                    ai.onnxruntime.TensorInfo ti = (ai.onnxruntime.TensorInfo) e.getValue().getInfo();
                    long[] shape = inputShapes.get(e.getKey());
                    OnnxTensor t = filled(env, ti.type, shape, fills.getOrDefault(e.getKey(), 1.0));
                    tensors.add(t);
                    in.put(e.getKey(), t);
                }
                try (OrtSession.Result r = s.run(in)) {
                    // outputs are not needed: the profile holds every node's output shapes
                }
                Path profile = Path.of(s.endProfiling());
                try {
                    return parse(Files.readString(profile));
                } finally {
                    Files.deleteIfExists(profile);
                }
            }
        } finally {
            for (OnnxTensor t : tensors) {
                t.close();
            }
            Files.deleteIfExists(dir);
        }
    }

    static List<NodeRun> parse(String json) throws IOException {
        List<NodeRun> out = new ArrayList<>();
        for (JsonNode ev : new ObjectMapper().readTree(json)) {
            if (!"Node".equals(ev.path("cat").asText())) {
                continue;
            }
            String name = ev.path("name").asText();
            if (!name.endsWith("_kernel_time")) {
                continue;
            }
            JsonNode args = ev.path("args");
            List<String> types = new ArrayList<>();
            List<long[]> shapes = new ArrayList<>();
            for (JsonNode o : args.path("output_type_shape")) {
                var f = o.fields().next();
                types.add(f.getKey());
                long[] dims = new long[f.getValue().size()];
                for (int i = 0; i < dims.length; i++) {
                    dims[i] = f.getValue().get(i).asLong();
                }
                shapes.add(dims);
            }
            out.add(new NodeRun(name.substring(0, name.length() - "_kernel_time".length()),
                    args.path("op_name").asText(), types, shapes));
        }
        return out;
    }

    /** Bytes per element of an ORT type name as the profile writes it. */
    static int width(String ortType) {
        return switch (ortType) {
            case "double", "int64", "uint64" -> 8;
            case "float", "int32", "uint32" -> 4;
            case "float16", "bfloat16", "int16", "uint16" -> 2;
            case "int8", "uint8", "bool" -> 1;
            default -> throw new IllegalArgumentException("unknown ORT type " + ortType);
        };
    }

    private static OnnxTensor filled(OrtEnvironment env, OnnxJavaType type, long[] shape, double fill)
            throws OrtException {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        int width = switch (type) {
            case INT64, DOUBLE -> 8;
            case FLOAT, INT32 -> 4;
            case FLOAT16, INT16 -> 2;
            default -> 1;
        };
        ByteBuffer b = ByteBuffer.allocateDirect((int) (n * width)).order(ByteOrder.nativeOrder());
        for (long i = 0; i < n; i++) {
            switch (type) {
                case INT64 -> b.putLong((long) fill);
                case DOUBLE -> b.putDouble(fill);
                case FLOAT -> b.putFloat((float) fill);
                case INT32 -> b.putInt((int) fill);
                case BOOL, INT8, UINT8 -> b.put((byte) fill);
                default -> b.put(new byte[width]);
            }
        }
        b.rewind();
        return OnnxTensor.createTensor(env, b, shape, type);
    }
}
