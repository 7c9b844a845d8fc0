// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What decides a request's plan: its inputs' shapes, and the values of the small integer inputs the
 * plan reads (a sample rate whose value picks an If branch), with the key both are cached under.
 * Requests with equal keys have equal plans.
 *
 * @param shapes input name to extents, in name order
 * @param values input name to elements, for the inputs whose values the plan reads, in name order
 * @param key    the names, dims and values as text: equal exactly for equal requests
 */
record RequestShape(Map<String, long[]> shapes, Map<String, long[]> values, String key) {
    /** The element types a value is read from. */
    private static final Set<OnnxJavaType> VALUE_TYPES = EnumSet.of(OnnxJavaType.INT64, OnnxJavaType.INT32,
            OnnxJavaType.INT16, OnnxJavaType.INT8, OnnxJavaType.UINT8, OnnxJavaType.BOOL);

    /**
     * A request's shapes, and the values of those of its inputs in {@code valueInputs}.
     *
     * @throws IllegalArgumentException naming the input when one whose value the plan reads is not
     *                                  an integer or bool tensor
     */
    static RequestShape of(Map<String, OnnxTensor> inputs, Set<String> valueInputs) {
        Map<String, long[]> shapes = new TreeMap<>();
        Map<String, long[]> values = new TreeMap<>();
        inputs.forEach((name, tensor) -> {
            shapes.put(name, tensor.getInfo().getShape());
            if (valueInputs.contains(name)) {
                values.put(name, valuesOf(name, tensor));
            }
        });
        return new RequestShape(shapes, values, values.isEmpty() ? text(shapes) : text(shapes) + "=" + text(values));
    }

    /** A request of these shapes whose plan reads no input's value (a piece of a request's rows). */
    static RequestShape ofShapes(Map<String, long[]> shapes) {
        return new RequestShape(shapes, Map.of(), text(shapes));
    }

    private static long[] valuesOf(String name, OnnxTensor tensor) {
        OnnxJavaType type = tensor.getInfo().type;
        if (!VALUE_TYPES.contains(type)) {
            throw new IllegalArgumentException("input '" + name + "' is a " + type
                    + " tensor, but its value decides the plan; give it as an integer or bool tensor");
        }
        ByteBuffer bytes = tensor.getByteBuffer().order(ByteOrder.nativeOrder()); // a copy of the elements
        long[] values = new long[bytes.remaining() / type.size];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (type) {
                case INT64 -> bytes.getLong();
                case INT32 -> bytes.getInt();
                case INT16 -> bytes.getShort();
                case INT8 -> bytes.get();
                default -> Byte.toUnsignedLong(bytes.get()); // UINT8, BOOL
            };
        }
        return values;
    }

    /** The names and numbers, in name order. */
    private static String text(Map<String, long[]> byName) {
        StringBuilder key = new StringBuilder();
        byName.forEach((name, numbers) -> {
            key.append(name.length()).append(':').append(name);
            for (long n : numbers) {
                key.append(',').append(n);
            }
            key.append(';');
        });
        return key.toString();
    }
}
