// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memplan.Dim;
import dev.memplan.Shape;
import dev.memplan.server.BudgetExceededException;
import java.lang.reflect.Constructor;
import dev.memplan.io.OffHeapBytes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * One request run as pieces of its batch rows, when the whole needs more than the budget can ever
 * lease but its rows fit a few at a time ({@link BudgetedOrtSession#run}). ORT's graph must keep
 * the rows apart (checked when the model was compiled); each piece runs with its outputs pinned
 * into their rows of the joined outputs, so nothing is copied twice, and the caller's reader sees
 * one result of the whole request.
 *
 * <p>The request holds one lease throughout: the largest piece's prediction plus the joined outputs,
 * which live outside ORT's arena. Holding one lease, never one while waiting for another, keeps two
 * split requests from waiting on each other.
 */
final class RowPieces {
    private final OrtSession session;
    private final Map<String, OnnxTensor> inputs;
    private final List<String> batched;
    private final Map<String, long[]> outputShapes;
    private final Map<String, OnnxJavaType> outputTypes;
    private final long rows;
    private final long joinedBytes;
    private final List<OffHeapBytes> owned = new ArrayList<>();

    private RowPieces(OrtSession session, Map<String, OnnxTensor> inputs, List<String> batched,
                      Map<String, long[]> outputShapes, Map<String, OnnxJavaType> outputTypes, long rows,
                      long joinedBytes) {
        this.session = session;
        this.inputs = inputs;
        this.batched = batched;
        this.outputShapes = outputShapes;
        this.outputTypes = outputTypes;
        this.rows = rows;
        this.joinedBytes = joinedBytes;
    }

    /**
     * The request as pieces of rows, or empty when it must run whole: the graph mixes rows, an input
     * or output is not a tensor of numbers, an output's extent follows the data, or ORT Java's
     * result cannot be joined.
     */
    static Optional<RowPieces> of(OrtSession session, OrtModel model, Map<String, OnnxTensor> inputs,
                                  Map<String, long[]> shapes) throws OrtException {
        Optional<String> batch = model.rowsApartBy();
        if (batch.isEmpty() || JoinedResult.CONSTRUCTOR == null) {
            return Optional.empty();
        }
        Dim.Symbol rowsSymbol = new Dim.Symbol(batch.get());
        List<String> batched = new ArrayList<>();
        long rows = -1;
        for (Map.Entry<String, Shape> declared : model.model().inputs().entrySet()) {
            OnnxTensor tensor = inputs.get(declared.getKey());
            if (tensor == null || tensor.getInfo().type == OnnxJavaType.STRING) {
                return Optional.empty();
            }
            if (declared.getValue().rank() > 0 && declared.getValue().dims().get(0).equals(rowsSymbol)) {
                batched.add(declared.getKey());
                rows = shapes.get(declared.getKey())[0];
            }
        }
        Optional<Map<String, long[]>> outputs = model.outputShapes(shapes);
        if (batched.isEmpty() || rows < 2 || outputs.isEmpty()) {
            return Optional.empty();
        }
        Map<String, OnnxJavaType> types = new LinkedHashMap<>();
        long joined = 0;
        for (Map.Entry<String, NodeInfo> out : session.getOutputInfo().entrySet()) {
            long[] shape = outputs.get().get(out.getKey());
            if (!(out.getValue().getInfo() instanceof TensorInfo info) || info.type == OnnxJavaType.STRING
                    || shape == null || shape.length == 0 || shape[0] != rows) {
                return Optional.empty();
            }
            types.put(out.getKey(), info.type);
            joined += elements(shape) * info.type.size;
        }
        return Optional.of(new RowPieces(session, inputs, batched, outputs.get(), types, rows, joined));
    }

    /** {@return the request's rows} */
    long rows() {
        return rows;
    }

    /** {@return the bytes of the joined outputs, held outside ORT's arena until the result is closed} */
    long joinedBytes() {
        return joinedBytes;
    }

    /** The input shapes of a piece of {@code pieceRows} rows. */
    Map<String, long[]> shapesOf(Map<String, long[]> whole, long pieceRows) {
        Map<String, long[]> piece = new LinkedHashMap<>(whole);
        for (String name : batched) {
            long[] dims = whole.get(name).clone();
            dims[0] = pieceRows;
            piece.put(name, dims);
        }
        return piece;
    }

    /**
     * The most rows a piece may have: the largest count whose lease, with the joined outputs, fits
     * {@code leasable} (leases grow with the rows).
     *
     * @throws BudgetExceededException naming both figures when one row does not fit
     */
    long rowsPerPiece(Map<String, long[]> whole, ToLongFunction<Map<String, long[]>> lease, long leasable) {
        long one = lease.applyAsLong(shapesOf(whole, 1));
        if (one + joinedBytes > leasable) {
            throw new BudgetExceededException("one row of the request needs " + one + " bytes in ONNX Runtime's arena"
                    + " and the joined outputs of its " + rows + " rows " + joinedBytes + " bytes, more than the "
                    + leasable + " bytes the budget leases; raise the budget or shorten the rows");
        }
        long fits = 1;
        long above = rows;
        while (above - fits > 1) {
            long mid = fits + (above - fits) / 2;
            if (lease.applyAsLong(shapesOf(whole, mid)) + joinedBytes <= leasable) {
                fits = mid;
            } else {
                above = mid;
            }
        }
        return fits;
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
            in.put(input.getKey(), batched.contains(input.getKey()) ? direct(input.getValue().getByteBuffer()) : null);
        }
        Map<String, ByteBuffer> out = new LinkedHashMap<>();
        outputShapes.forEach((name, shape) -> out.put(name, owned(elements(shape) * outputTypes.get(name).size)));
        for (long first = 0; first < rows; first += pieceRows) {
            long count = Math.min(pieceRows, rows - first);
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
        long rowBytes = elements(shape) / shape[0] * type.size;
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

    /** Off-heap bytes this request's pieces use, given back by {@link #release}. */
    private ByteBuffer owned(long size) {
        OffHeapBytes bytes = OffHeapBytes.allocate(size);
        owned.add(bytes);
        return bytes.buffer();
    }

    /**
     * Gives back the copies of the inputs and the joined outputs at once, not at a later garbage
     * collection: they would otherwise sit outside the budget once the lease that counted them is
     * released. Only after the joined result is closed and nothing read from it is in use.
     */
    void release() {
        owned.forEach(OffHeapBytes::close);
        owned.clear();
    }

    private static long elements(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
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
