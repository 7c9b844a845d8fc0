// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Runs one probe model (one node of a saved graph, at probe shapes; {@link KernelProbes}) in ONNX
 * Runtime through memplan's counting allocator, which counts each block at the bytes ORT asked for,
 * and answers what the node took beyond its outputs: the peak of a run over what was held before
 * it, less the outputs' bytes, the larger of two runs (a kernel may set something up on its first);
 * and the blocks it asked for beyond its outputs and gave back, in order, which ORT's arena rounds
 * one by one.
 * Inputs are fed from the caller's memory, so only the node's outputs and workspaces are counted.
 * Float inputs get a fixed ramp of values, every other type zeros. Runs in the child JVM
 * ({@link KernelProbeMain}), where nothing else allocates through the counting allocator.
 */
final class KernelProbeRun {
    /**
     * One line per probe: {@code ok WORKSPACE [DIMS];[DIMS]... BLOCKS} (the outputs' dims; the
     * blocks the kernel took beyond its outputs in the second run, and gave back, in order, as
     * {@link BlockEvents}, comma-separated, or {@code -}) or {@code error MESSAGE}.
     */
    static final String OK = "ok";
    static final String ERROR = "error";

    private KernelProbeRun() {
    }

    /** {@return the probe's result line} */
    static String run(OrtEnvironment env, Path model) {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT); // the node as ORT saved it
            options.setIntraOpNumThreads(1);
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            try (OrtSession session = env.createSession(model.toString(), OrtCApi.useCountingAllocator(options))) {
                Map<String, OnnxTensor> inputs = inputs(env, session);
                try {
                    long workspace = 0;
                    String shapes = null;
                    long[] blocks = null;
                    for (int run = 0; run < 2; run++) {
                        OrtCApi.restartCountingPeak();
                        long before = OrtCApi.countingStats()[0];
                        OrtCApi.startCountingLog();
                        try (OrtSession.Result result = session.run(inputs)) {
                            long peak = OrtCApi.countingStats()[1];
                            long[] log = OrtCApi.stopCountingLog();
                            long outputs = 0;
                            StringJoiner dims = new StringJoiner(";");
                            List<Long> outputBytes = new ArrayList<>();
                            for (Map.Entry<String, OnnxValue> e : result) {
                                if (!(e.getValue() instanceof OnnxTensor t)) {
                                    return ERROR + " output " + e.getKey() + " is not a tensor";
                                }
                                TensorInfo info = t.getInfo();
                                long bytes = Math.multiplyExact(info.getNumElements(), (long) info.type.size);
                                outputs += bytes;
                                outputBytes.add(bytes);
                                dims.add(join(info.getShape()));
                            }
                            workspace = Math.max(workspace, Math.max(0, peak - before - outputs));
                            shapes = dims.toString();
                            // the outputs' blocks left out; the rest is workspace, taken and given back
                            blocks = BlockEvents.beyondOutputs(log,
                                    outputBytes.stream().mapToLong(Long::longValue).toArray());
                        }
                    }
                    StringJoiner taken = new StringJoiner(",");
                    for (long b : blocks) {
                        taken.add(Long.toString(b));
                    }
                    return OK + " " + workspace + " " + shapes + " " + (blocks.length == 0 ? "-" : taken.toString());
                } finally {
                    inputs.values().forEach(OnnxTensor::close);
                }
            }
        } catch (OrtException | RuntimeException e) {
            return ERROR + " " + OrtOptimizedGraph.reason(e.getMessage());
        }
    }

    private static Map<String, OnnxTensor> inputs(OrtEnvironment env, OrtSession session) throws OrtException {
        Map<String, OnnxTensor> inputs = new HashMap<>();
        List<OnnxTensor> made = new ArrayList<>();
        try {
            for (Map.Entry<String, NodeInfo> e : session.getInputInfo().entrySet()) {
                if (!(e.getValue().getInfo() instanceof TensorInfo info) || info.type == OnnxJavaType.STRING
                        || info.type == OnnxJavaType.UNKNOWN) {
                    throw new IllegalArgumentException("input " + e.getKey() + " is not a numeric tensor");
                }
                long elements = info.getNumElements();
                ByteBuffer data = ByteBuffer.allocateDirect(Math.toIntExact(elements * info.type.size))
                        .order(ByteOrder.nativeOrder());
                if (info.type == OnnxJavaType.FLOAT) {
                    for (long i = 0; i < elements; i++) {
                        data.putFloat((i % 17) * 0.125f - 1f); // no zeros-only fast path, no overflow
                    }
                    data.rewind();
                }
                OnnxTensor t = OnnxTensor.createTensor(env, data, info.getShape(), info.type);
                made.add(t);
                inputs.put(e.getKey(), t);
            }
            return inputs;
        } catch (OrtException | RuntimeException e) {
            made.forEach(OnnxTensor::close);
            throw e;
        }
    }

    static String join(long[] dims) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (long d : dims) {
            j.add(Long.toString(d));
        }
        return j.toString();
    }
}
