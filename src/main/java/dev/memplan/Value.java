// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/**
 * A tensor of the graph.
 *
 * @param id       dense id, the value's creation order in its graph
 * @param name     the value's name; may be empty for unnamed values
 * @param dataType element type
 * @param shape    static and symbolic dims
 * @param producer id of the node that produces it, or -1 for graph inputs and initializers
 */
public record Value(int id, String name, DataType dataType, Shape shape, int producer) {

    /** {@return how errors and reports name this value: {@code 'h' (value 3)}} */
    public String describe() {
        return name.isEmpty() ? "value " + id : "'" + name + "' (value " + id + ")";
    }

    /** {@return the name, or {@code %id} when the value has none} */
    public String displayName() {
        return name.isEmpty() ? "%" + id : name;
    }
}
