// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.TensorInfo;
import dev.memplan.Dim;
import dev.memplan.Shape;
import dev.memplan.server.BudgetExceededException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Where a request's batch rows are, when ORT's graph keeps them apart: the inputs that carry them,
 * the outputs' shapes and types, and the bytes of the joined outputs. It follows from the request's
 * shapes alone, so {@link BudgetedOrtSession} works it out once per shape; {@link RowPieces} runs a
 * request by it.
 *
 * @param batched      the inputs whose first dim is the rows
 * @param outputShapes every output's shape for the whole request, in the graph's order
 * @param outputTypes  every output's element type
 * @param rows         the request's rows
 * @param joinedBytes  what the counting allocator holds for the joined outputs and the copies of the
 *                     batched inputs, outside ORT's runs until the result is closed
 */
record RowLayout(List<String> batched, Map<String, long[]> outputShapes, Map<String, OnnxJavaType> outputTypes,
                 long rows, long joinedBytes) {

    /**
     * The request's rows, or empty when it must run whole: one row, a graph that mixes rows, an input or
     * output that is not a tensor of numbers, an output's extent that follows the data, or an ORT
     * Java whose result cannot be joined.
     *
     * @param model   the model compiled for ORT
     * @param inputs  the session's inputs, by name
     * @param outputs the session's outputs, by name
     * @param shapes  the request's input shapes, by name
     */
    static Optional<RowLayout> of(OrtModel model, Map<String, NodeInfo> inputs, Map<String, NodeInfo> outputs,
                                  Map<String, long[]> shapes) {
        Optional<String> batch = model.rowsApartBy();
        if (batch.isEmpty() || RowPieces.JoinedResult.CONSTRUCTOR == null) {
            return Optional.empty();
        }
        Dim.Symbol rowsSymbol = new Dim.Symbol(batch.get());
        List<String> batched = new ArrayList<>();
        long rows = -1;
        long copies = 0;
        for (Map.Entry<String, Shape> declared : model.model().inputs().entrySet()) {
            String name = declared.getKey();
            if (!shapes.containsKey(name) || !(inputs.get(name).getInfo() instanceof TensorInfo info)
                    || info.type == OnnxJavaType.STRING) {
                return Optional.empty();
            }
            if (declared.getValue().rank() > 0 && declared.getValue().dims().get(0).equals(rowsSymbol)) {
                batched.add(name);
                rows = shapes.get(name)[0];
                copies += RowPieces.heldFor(elements(shapes.get(name)) * info.type.size);
            }
        }
        Optional<Map<String, long[]>> outputShapes = model.outputShapes(shapes);
        if (batched.isEmpty() || rows < 2 || outputShapes.isEmpty()) {
            return Optional.empty();
        }
        Map<String, OnnxJavaType> types = new LinkedHashMap<>();
        long joined = copies;
        for (Map.Entry<String, NodeInfo> out : outputs.entrySet()) {
            long[] shape = outputShapes.get().get(out.getKey());
            if (!(out.getValue().getInfo() instanceof TensorInfo info) || info.type == OnnxJavaType.STRING
                    || shape == null || shape.length == 0 || shape[0] != rows) {
                return Optional.empty();
            }
            types.put(out.getKey(), info.type);
            joined += RowPieces.heldFor(elements(shape) * info.type.size);
        }
        return Optional.of(new RowLayout(List.copyOf(batched), outputShapes.get(), types, rows, joined));
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

    static long elements(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }
}
