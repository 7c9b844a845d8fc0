// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memplan.MemplanException;
import dev.memplan.server.CompiledModel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of {@link ResidentProbe}: measures what a server process holds for one model, its
 * resident bytes read from {@code /proc/self/status} at each step, the heap fixed and pre-touched
 * so that only native memory moves. Steps: the JVM alone; memplan's compile and plan of the model;
 * ORT's environment and memplan's allocator library; the session ({@link #session}: the counting
 * allocator, no memory patterns, the intra-op threads); a warm-up run with every symbol at 1; the
 * longest request on one thread; the same on a fresh thread (its thread-local buffers, the blocks
 * of the first run kept for reuse). Arguments: the message file, the model, the figures' file, the
 * level, the intra-op threads, the bytes the allocator may keep, then {@code SYMBOL=N} bindings.
 */
final class ResidentProbeMain {
    private static final long SAMPLE_MILLIS = 2;

    private ResidentProbeMain() {
    }

    public static void main(String[] args) {
        if (args.length < 6) {
            System.err.println("usage: ResidentProbeMain MESSAGE-FILE MODEL FIGURES LEVEL INTRA-OP KEEP [SYMBOL=N...]");
            System.exit(2);
        }
        ChildMain.endWithParent();
        Map<String, Long> bindings = new LinkedHashMap<>();
        for (int i = 6; i < args.length; i++) {
            int eq = args[i].lastIndexOf('=');
            bindings.put(args[i].substring(0, eq), Long.parseLong(args[i].substring(eq + 1)));
        }
        ChildMain.exitAfter(Path.of(args[0]), reason -> "ONNX Runtime failed running the model: " + reason, () -> {
            Map<String, Long> figures = BigStack.call("memplan-probe", () -> measure(Path.of(args[1]), args[3],
                    Integer.parseInt(args[4]), Long.parseLong(args[5]), bindings));
            StringBuilder text = new StringBuilder();
            figures.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
            Files.writeString(Path.of(args[2]), text, StandardCharsets.UTF_8);
        });
    }

    private static Map<String, Long> measure(Path model, String level, int intraOp, long keep,
                                             Map<String, Long> longest) throws Exception {
        Map<String, Long> figures = new LinkedHashMap<>();
        System.gc();
        figures.put("jvm", resident());
        CompiledModel.compile(model).plan(longest); // what a server's memplan holds besides its heap
        figures.put("memplan", resident());
        OrtEnvironment env = OrtOptimizedGraph.environment();
        OrtCApi.requireLoaded();
        OrtCApi.registerCountingAllocator(env);
        OrtCApi.keepCountedBlocksUpTo(keep);
        figures.put("runtime", resident());
        try (OrtSession session = session(env, model, level, intraOp)) {
            figures.put("session", resident());
            run(env, session, Map.of());
            figures.put("warmup", resident());
            long heldBefore = OrtCApi.countingStats()[2];
            OrtCApi.restartCountingPeak();
            figures.put("longest", peakDuring(() -> run(env, session, longest)));
            // held from the system, not in use: blocks kept for reuse and page tails are resident too
            figures.put("allocatorGrowth", OrtCApi.countingMaxHeld() - heldBefore);
            figures.put("freshThread", peakDuring(() -> run(env, session, longest)));
        }
        return figures;
    }

    /** The session as {@code BoundedOrtArena.configure} sets it, with {@code intraOp} threads. */
    private static OrtSession session(OrtEnvironment env, Path model, String level, int intraOp) throws OrtException {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.valueOf(level));
            options.setIntraOpNumThreads(intraOp);
            options.setInterOpNumThreads(1);
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            return env.createSession(model.toString(), OrtCApi.useCountingAllocator(options));
        }
    }

    /** One run with zeros in every input, each symbolic dim bound (1 when unbound: the warm-up). */
    private static void run(OrtEnvironment env, OrtSession session, Map<String, Long> bindings) {
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
            for (Map.Entry<String, NodeInfo> e : session.getInputInfo().entrySet()) {
                if (!(e.getValue().getInfo() instanceof TensorInfo info) || info.type == OnnxJavaType.STRING
                        || info.type == OnnxJavaType.UNKNOWN) {
                    throw new MemplanException("the input '" + e.getKey() + "' is not a numeric tensor; memplan size"
                            + " measures models whose inputs are");
                }
                long[] shape = info.getShape().clone();
                String[] names = info.getDimensionNames();
                long elements = 1;
                for (int d = 0; d < shape.length; d++) {
                    if (shape[d] < 0) {
                        shape[d] = bindings.getOrDefault(names[d], bindings.isEmpty() ? 1L : -1L);
                        if (shape[d] < 0) {
                            throw new MemplanException("the input '" + e.getKey() + "' has a dim ORT names '" + names[d]
                                    + "' that no binding gives; bind the model's symbols by those names");
                        }
                    }
                    elements = Math.multiplyExact(elements, shape[d]);
                }
                ByteBuffer zeros = ByteBuffer.allocateDirect(Math.toIntExact(elements * info.type.size))
                        .order(ByteOrder.nativeOrder());
                inputs.put(e.getKey(), OnnxTensor.createTensor(env, zeros, shape, info.type));
            }
            try (OrtSession.Result ignored = session.run(inputs)) {
                // the outputs are ORT's until closed, as a server's are while it reads them
            }
        } catch (OrtException e) {
            throw new MemplanException("ONNX Runtime cannot run the model: " + OrtOptimizedGraph.reason(e.getMessage()), e);
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** The most resident bytes seen while {@code work} runs on a fresh thread with a server's default stack. */
    private static long peakDuring(Runnable work) throws InterruptedException {
        AtomicLong peak = new AtomicLong(resident());
        Throwable[] failure = new Throwable[1];
        Thread worker = new Thread(() -> {
            try {
                work.run();
            } catch (RuntimeException | Error e) {
                failure[0] = e;
            }
        }, "memplan-probe-request");
        worker.start();
        while (worker.isAlive()) {
            peak.accumulateAndGet(resident(), Math::max);
            worker.join(SAMPLE_MILLIS);
        }
        if (failure[0] instanceof RuntimeException r) {
            throw r;
        }
        if (failure[0] instanceof Error err) {
            throw err;
        }
        return Math.max(peak.get(), resident());
    }

    private static long resident() {
        return IsolatedOrtLoad.residentBytes(Path.of("/proc/self/status"));
    }
}
