// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.onnx.BindingConflictException;

/**
 * A request binds a symbol above the largest value the model accepts ({@link CompiledModel#limits()}):
 * MiniLM's {@code sequence_length} above 512, the rows of its position table. A
 * {@link BindingConflictException}, the family of "this request does not fit this model".
 */
public class ModelLimitException extends BindingConflictException {
    private static final long serialVersionUID = 1L;

    /** The symbol the request bound above its limit. */
    private final String symbol;
    /** The value the request bound it to. */
    private final long value;
    /** The largest value the model accepts for it. */
    private final long limit;

    /**
     * An exception naming the symbol, its value and limit, and the node that imposes the limit.
     *
     * @param symbol the symbol
     * @param value  the value the request binds
     * @param limit  the largest value the model accepts
     * @param node   the node whose relation imposes the limit, as messages name nodes
     */
    public ModelLimitException(String symbol, long value, long limit, String node) {
        super(symbol + " = " + value + " is above " + limit + ", the largest value the model accepts ("
                + node + " needs " + symbol + " <= " + limit + "); split the request or bind " + symbol + " <= "
                + limit);
        this.symbol = symbol;
        this.value = value;
        this.limit = limit;
    }

    /** {@return the symbol above its limit} */
    public String symbol() {
        return symbol;
    }

    /** {@return the value the request bound} */
    public long value() {
        return value;
    }

    /** {@return the largest value the model accepts} */
    public long limit() {
        return limit;
    }
}
