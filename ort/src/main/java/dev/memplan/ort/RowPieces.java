// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One request run as pieces of its batch rows ({@link BudgetedOrtSession#run}), by the request
 * shape's {@link RowLayout}: each piece runs with its outputs pinned into their rows of the joined
 * outputs, so nothing is copied twice, and the caller's reader sees one result of the whole
 * request.
 *
 * <p>The request holds one lease throughout: the largest piece's prediction plus the joined outputs,
 * which live outside ORT's arena. Holding one lease, never one while waiting for another, keeps two
 * split requests from waiting on each other.
 */
final class RowPieces {
    private final OrtSession session;
    private final RowLayout layout;
    private final Map<String, OnnxTensor> inputs;
    private final List<ByteBuffer> owned = new ArrayList<>();

    /**
     * @param session the session
     * @param layout  where the request's rows are
     * @param inputs  the request's inputs
     */
    RowPieces(OrtSession session, RowLayout layout, Map<String, OnnxTensor> inputs) {
        this.session = session;
        this.layout = layout;
        this.inputs = inputs;
    }

    /**
     * Runs the pieces in order, each writing its rows of the joined outputs.
     *
     * @return the joined result; the caller closes it
     */
    OrtSession.Result run(long pieceRows) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Map<String, ByteBuffer> in = new LinkedHashMap<>();
        for (Map.Entry<String, OnnxTensor> input : inputs.entrySet()) {
            in.put(input.getKey(), layout.batched().contains(input.getKey())
                    ? direct(input.getValue().getByteBuffer()) : null);
        }
        Map<String, ByteBuffer> out = new LinkedHashMap<>();
        Map<String, long[]> outputShapes = layout.outputShapes();
        Map<String, OnnxJavaType> outputTypes = layout.outputTypes();
        outputShapes.forEach((name, shape) ->
                out.put(name, owned(RowLayout.elements(shape) * outputTypes.get(name).size)));
        for (long first = 0; first < layout.rows(); first += pieceRows) {
            long count = Math.min(pieceRows, layout.rows() - first);
            List<OnnxTensor> made = new ArrayList<>();
            try {
                Map<String, OnnxTensor> pieceInputs = new LinkedHashMap<>();
                for (Map.Entry<String, OnnxTensor> input : inputs.entrySet()) {
                    ByteBuffer data = in.get(input.getKey());
                    if (data == null) {
                        pieceInputs.put(input.getKey(), input.getValue()); // no rows: whole to every piece
                        continue;
                    }
                    OnnxTensor t = rowsOf(env, data, input.getValue().getInfo().getShape(), first, count,
                            input.getValue().getInfo().type);
                    made.add(t);
                    pieceInputs.put(input.getKey(), t);
                }
                Map<String, OnnxTensor> pinned = new LinkedHashMap<>();
                for (Map.Entry<String, long[]> output : outputShapes.entrySet()) {
                    OnnxTensor t = rowsOf(env, out.get(output.getKey()), output.getValue(), first, count,
                            outputTypes.get(output.getKey()));
                    made.add(t);
                    pinned.put(output.getKey(), t);
                }
                session.run(pieceInputs, pinned).close(); // pinned outputs are not the result's: they stay
            } finally {
                made.forEach(OnnxTensor::close);
            }
        }
        List<OnnxTensor> joined = new ArrayList<>();
        try {
            for (Map.Entry<String, long[]> output : outputShapes.entrySet()) {
                joined.add(OnnxTensor.createTensor(env, out.get(output.getKey()), output.getValue(),
                        outputTypes.get(output.getKey())));
            }
            return JoinedResult.of(new ArrayList<>(outputShapes.keySet()), joined);
        } catch (OrtException | RuntimeException e) {
            joined.forEach(OnnxTensor::close);
            throw e;
        }
    }

    /** A tensor over rows {@code [first, first + count)} of {@code data}, a whole tensor of {@code shape}. */
    private static OnnxTensor rowsOf(OrtEnvironment env, ByteBuffer data, long[] shape, long first, long count,
                                     OnnxJavaType type) throws OrtException {
        long rowBytes = RowLayout.elements(shape) / shape[0] * type.size;
        ByteBuffer rows = data.slice(Math.toIntExact(first * rowBytes), Math.toIntExact(count * rowBytes))
                .order(ByteOrder.nativeOrder());
        long[] pieceShape = shape.clone();
        pieceShape[0] = count;
        return OnnxTensor.createTensor(env, rows, pieceShape, type);
    }

    /** A direct copy of {@code bytes}, which ORT reads in place. */
    private ByteBuffer direct(ByteBuffer bytes) {
        ByteBuffer copy = owned(bytes.remaining());
        copy.put(bytes.duplicate());
        return copy.flip();
    }

    /**
     * Bytes from the counting allocator this request's pieces use, given back by {@link #release}:
     * counted with ORT's blocks, so what the allocator keeps for reuse leaves room for them.
     */
    private ByteBuffer owned(long size) {
        ByteBuffer bytes = OrtCApi.allocateCounted(blockBytes(size));
        owned.add(bytes);
        return bytes;
    }

    /**
     * What the counting allocator holds for one buffer of {@code size} bytes the pieces use: what
     * {@link RowLayout#joinedBytes()} leases for each.
     */
    static long heldFor(long size) {
        return OrtCApi.countedBytes(blockBytes(size));
    }

    /** The block a buffer takes: at least one byte, since the allocator hands out no empty block. */
    private static long blockBytes(long size) {
        return Math.max(1, size);
    }

    /**
     * Gives back the copies of the inputs and the joined outputs at once, not at a later garbage
     * collection: they would otherwise sit outside the budget once the lease that counted them is
     * released. Only after the joined result is closed and nothing read from it is in use.
     */
    void release() {
        owned.forEach(OrtCApi::releaseCounted);
        owned.clear();
    }

    /**
     * The caller's reader takes an {@link OrtSession.Result}, whose constructor ORT Java keeps to its
     * package (the same in 1.23 to 1.29): a joined result is made through it, reflectively.
     */
    static final class JoinedResult {
        /** The constructor, or null when this ORT Java has another one: requests then run whole. */
        static final Constructor<OrtSession.Result> CONSTRUCTOR = constructor();

        private JoinedResult() {
        }

        private static Constructor<OrtSession.Result> constructor() {
            try {
                Constructor<OrtSession.Result> c = OrtSession.Result.class.getDeclaredConstructor(String[].class,
                        OnnxValue[].class, boolean[].class);
                c.setAccessible(true);
                return c;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        /** A result that owns {@code values}: closing it closes them. */
        static OrtSession.Result of(List<String> names, List<OnnxTensor> values) {
            boolean[] owned = new boolean[values.size()];
            java.util.Arrays.fill(owned, true);
            try {
                return CONSTRUCTOR.newInstance(names.toArray(String[]::new), values.toArray(OnnxValue[]::new), owned);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("ONNX Runtime Java refused to make the joined result: " + e, e);
            }
        }
    }
}
