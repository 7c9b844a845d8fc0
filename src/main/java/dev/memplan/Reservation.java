// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;

/**
 * Something that can say how many bytes a request must reserve at given symbol bounds: a
 * {@link Schedule} (its plan's peak) or a compiled ONNX model (its outer peak plus the transient
 * need of its If/Loop/Scan bodies). {@link Admission} searches over it.
 *
 * <p>Implementations must be monotone in every symbol (a larger bound never needs fewer bytes, as
 * holds because sizes only grow with their symbols) and thread-safe.
 */
public interface Reservation {

    /**
     * The bytes to reserve for a request whose symbols are at most {@code bounds} (symbol name to
     * value), or empty when a symbol it needs has no bound. Never zero for an unplannable model.
     *
     * @param bounds upper bound of each symbol
     * @return the bytes to reserve, or empty when the plan is deferred
     * @throws InvalidSizeException naming the value when a size overflows or a dim evaluates negative
     */
    OptionalLong reservationBytes(Map<String, Long> bounds);

    /**
     * The names of the symbols {@link #reservationBytes} needs bound, for error messages.
     *
     * @return symbol names, in first-use order
     */
    java.util.Set<String> symbolNames();
}
