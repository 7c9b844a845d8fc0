// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Dim;
import dev.memplan.Shape;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * What ONNX Runtime's planner compares before it lets two values share a buffer ({@code SameSize}):
 * element width and the shape known at load, dim by dim, a fixed extent equal to the same extent,
 * a symbol to the same symbol. It is decided on the graph's symbolic shapes, never on a request's
 * sizes: comparing bound shapes finds 527 freelist matches on MiniLM where ORT finds 171.
 *
 * @param bits element width in bits
 * @param dims each dim: a {@code Long} extent or a {@code String} symbol name
 */
record SameSizeKey(int bits, List<Object> dims) {

    /**
     * {@return the key of a value, or null when ORT would not know its shape}; a dim memplan derives
     * (say {@code 2*seq}) has no name in ORT's inferred shape, so it never matches
     */
    static SameSizeKey of(Value value) {
        return of(value.dataType().bits(), value.shape());
    }

    /** {@return the key of a shape of {@code bits}-wide elements, or null when a dim is neither an extent nor a symbol} */
    static SameSizeKey of(int bits, Shape shape) {
        List<Object> dims = new ArrayList<>(shape.rank());
        for (Dim d : shape.dims()) {
            if (d instanceof Dim.Fixed fixed) {
                dims.add(fixed.extent());
            } else if (d instanceof Symbol symbol) {
                dims.add(symbol.name());
            } else {
                return null;
            }
        }
        return new SameSizeKey(bits, List.copyOf(dims));
    }
}
