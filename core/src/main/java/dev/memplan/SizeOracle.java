// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Graph.Value;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Maps an owner to its size in bytes, or empty when the size is not known yet. A plan with an
 * unknown size is deferred, never guessed.
 */
@FunctionalInterface
public interface SizeOracle {

    /**
     * {@return the bytes {@code owner} needs (>= 0), or empty when unknown}
     *
     * @param owner the owner
     */
    OptionalLong bytes(Value owner);

    /** {@return sizes from static shapes; any symbolic dim makes a size unknown} */
    static SizeOracle staticShapes() {
        return bounded(Map.of());
    }

    /**
     * Sizes with each symbol replaced by its bound (symbol name to value); a symbol without a bound
     * leaves the size unknown.
     *
     * @param bounds upper bound of each symbol (symbol name to value)
     * @return the oracle
     * @throws InvalidSizeException naming the symbol when a bound is negative
     * @throws NullPointerException naming what is null: the map, a symbol name or a value
     */
    static SizeOracle bounded(Map<String, Long> bounds) {
        if (bounds == null) {
            throw new NullPointerException("the bindings are null; pass a map of symbol name to value (an empty map"
                    + " when binding nothing)");
        }
        for (Map.Entry<String, Long> e : bounds.entrySet()) { // before Map.copyOf, whose null message is "null"
            if (e.getKey() == null) {
                throw new NullPointerException("a binding has a null symbol name (bound to " + e.getValue()
                        + "); name the symbol it binds");
            }
            if (e.getValue() == null) {
                throw new NullPointerException("symbol '" + e.getKey() + "' is bound to null; bind it to a value >= 0");
            }
        }
        Map<String, Long> copy = Map.copyOf(bounds);
        for (Map.Entry<String, Long> e : copy.entrySet()) {
            if (e.getValue() < 0) {
                throw new InvalidSizeException("symbol '" + e.getKey() + "' is bound to " + e.getValue()
                        + "; bind it to a value >= 0");
            }
        }
        return owner -> owner.bytesAt(copy);
    }
}
