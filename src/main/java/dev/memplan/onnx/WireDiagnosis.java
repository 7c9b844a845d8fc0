// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds where a model file stops being valid protobuf, to name the model element at fault
 * ({@code graph.node[12].attribute[0]}) when protobuf itself only says "truncated". A plain
 * wire-format walk over the message types planning knows, with an explicit stack: no recursion,
 * and it reads every byte at most once.
 */
final class WireDiagnosis {
    private WireDiagnosis() {
    }

    private enum Msg { MODEL, GRAPH, NODE, ATTR, TENSOR, SPARSE, VALUE_INFO, TYPE, TENSOR_TYPE, SEQ_TYPE, SHAPE, DIM, OPSET, ENTRY }

    private record Child(String name, Msg type) {
    }

    private static final Map<Msg, Map<Integer, Child>> SCHEMA = new HashMap<>();

    static {
        put(Msg.MODEL, 7, "graph", Msg.GRAPH);
        put(Msg.MODEL, 8, "opset_import", Msg.OPSET);
        put(Msg.GRAPH, 1, "node", Msg.NODE);
        put(Msg.GRAPH, 5, "initializer", Msg.TENSOR);
        put(Msg.GRAPH, 11, "input", Msg.VALUE_INFO);
        put(Msg.GRAPH, 12, "output", Msg.VALUE_INFO);
        put(Msg.GRAPH, 13, "value_info", Msg.VALUE_INFO);
        put(Msg.GRAPH, 15, "sparse_initializer", Msg.SPARSE);
        put(Msg.NODE, 5, "attribute", Msg.ATTR);
        put(Msg.ATTR, 5, "t", Msg.TENSOR);
        put(Msg.ATTR, 6, "g", Msg.GRAPH);
        put(Msg.ATTR, 10, "tensors", Msg.TENSOR);
        put(Msg.ATTR, 11, "graphs", Msg.GRAPH);
        put(Msg.ATTR, 22, "sparse_tensor", Msg.SPARSE);
        put(Msg.TENSOR, 13, "external_data", Msg.ENTRY);
        put(Msg.SPARSE, 1, "values", Msg.TENSOR);
        put(Msg.SPARSE, 2, "indices", Msg.TENSOR);
        put(Msg.VALUE_INFO, 2, "type", Msg.TYPE);
        put(Msg.TYPE, 1, "tensor_type", Msg.TENSOR_TYPE);
        put(Msg.TYPE, 4, "sequence_type", Msg.SEQ_TYPE);
        put(Msg.TYPE, 8, "sparse_tensor_type", Msg.TENSOR_TYPE);
        put(Msg.TYPE, 9, "optional_type", Msg.SEQ_TYPE);
        put(Msg.SEQ_TYPE, 1, "elem_type", Msg.TYPE);
        put(Msg.TENSOR_TYPE, 2, "shape", Msg.SHAPE);
        put(Msg.SHAPE, 1, "dim", Msg.DIM);
    }

    private static void put(Msg parent, int field, String name, Msg child) {
        SCHEMA.computeIfAbsent(parent, k -> new HashMap<>()).put(field, new Child(name, child));
    }

    private static final class Frame {
        final Msg type;
        final int end;
        final String path;
        final Map<Integer, Integer> counts = new HashMap<>();

        Frame(Msg type, int end, String path) {
            this.type = type;
            this.end = end;
            this.path = path;
        }
    }

    /** {@code " at <element> (byte N)"}, or {@code ""} when the walk finds nothing wrong. */
    static String locate(ByteBuffer buf) {
        try {
            return walk(buf);
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static String walk(ByteBuffer buf) {
        int limit = buf.limit();
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(Msg.MODEL, limit, "model"));
        int pos = buf.position();
        long[] out = new long[1];
        while (!stack.isEmpty()) {
            Frame f = stack.peek();
            if (pos == f.end) {
                stack.pop();
                continue;
            }
            int tagStart = pos;
            pos = varint(buf, pos, f.end, out);
            if (pos < 0) {
                return at(f.path, tagStart, "a field tag runs past the end of " + f.path);
            }
            int field = (int) (out[0] >>> 3);
            int wire = (int) (out[0] & 7);
            switch (wire) {
                case 0 -> {
                    pos = varint(buf, pos, f.end, out);
                    if (pos < 0) {
                        return at(f.path, tagStart, "field " + field + " of " + f.path + " is cut off");
                    }
                }
                case 1, 5 -> {
                    pos += wire == 1 ? 8 : 4;
                    if (pos > f.end) {
                        return at(f.path, tagStart, "field " + field + " of " + f.path + " is cut off");
                    }
                }
                case 2 -> {
                    pos = varint(buf, pos, f.end, out);
                    if (pos < 0) {
                        return at(f.path, tagStart, "the length of field " + field + " of " + f.path + " is cut off");
                    }
                    long len = out[0];
                    Child child = SCHEMA.getOrDefault(f.type, Map.of()).get(field);
                    String name = child == null ? "field " + field : child.name;
                    if (len < 0 || len > f.end - pos) {
                        return at(f.path, tagStart, f.path + "." + name + " declares " + len + " bytes but only "
                                + (f.end - pos) + " remain in its enclosing element");
                    }
                    if (child != null && stack.size() < 100) {
                        int index = f.counts.merge(field, 1, Integer::sum) - 1;
                        stack.push(new Frame(child.type, pos + (int) len, f.path + "." + child.name + "[" + index + "]"));
                    } else {
                        pos += (int) len;
                    }
                }
                default -> {
                    return at(f.path, tagStart, f.path + " has field " + field + " with wire type " + wire
                            + ", which ONNX never uses");
                }
            }
        }
        return "";
    }

    private static String at(String path, int offset, String what) {
        return " at " + path + ", byte " + offset + ": " + what;
    }

    /** Reads a varint at {@code pos}; returns the next position, or -1 when it is cut off or too long. */
    private static int varint(ByteBuffer buf, int pos, int end, long[] out) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= end) {
                return -1;
            }
            byte b = buf.get(pos++);
            v |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                out[0] = v;
                return pos;
            }
        }
        return -1;
    }
}
