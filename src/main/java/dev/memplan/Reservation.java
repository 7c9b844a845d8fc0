// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;

/**
 * Something that can say how many bytes a request must reserve at given symbol bounds: a
 * {@link Schedule} (its plan's peak) or a compiled ONNX model (its outer peak plus the transient
 * need of its If/Loop/Scan bodies). {@link Admission} searches over it.
 *
 * <p>Implementations are thread-safe, and a reservation made at some bounds must hold every request
 * at or below them (sizes only grow with their symbols, so a plan made at the bounds is valid for
 * smaller bindings). The reported bytes need not be monotone in a symbol: a heuristic planner can
 * pack a larger request better; {@link Admission} does not rely on it.
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

    /**
     * The largest value {@code symbol} may take, where the graph or model imposes one (MiniLM's
     * {@code sequence_length <= 512}); {@link Admission} never searches past it.
     *
     * @param symbol a symbol name
     * @return the limit, or empty when there is none (the default)
     */
    default OptionalLong limit(String symbol) {
        return OptionalLong.empty();
    }
}
