// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
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
        return switch (tensor.getInfo().type) {
            case INT64 -> {
                LongBuffer b = tensor.getLongBuffer();
                long[] v = new long[b.remaining()];
                b.get(v);
                yield v;
            }
            case INT32 -> {
                IntBuffer b = tensor.getIntBuffer();
                long[] v = new long[b.remaining()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = b.get();
                }
                yield v;
            }
            case INT16 -> {
                ShortBuffer b = tensor.getShortBuffer();
                long[] v = new long[b.remaining()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = b.get();
                }
                yield v;
            }
            case INT8, UINT8, BOOL -> {
                ByteBuffer b = tensor.getByteBuffer();
                boolean unsigned = tensor.getInfo().type != OnnxJavaType.INT8;
                long[] v = new long[b.remaining()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = unsigned ? Byte.toUnsignedLong(b.get()) : b.get();
                }
                yield v;
            }
            default -> throw new IllegalArgumentException("input '" + name + "' is a " + tensor.getInfo().type
                    + " tensor, but its value decides the plan; give it as an integer or bool tensor");
        };
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
