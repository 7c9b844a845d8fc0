// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.Graph.Value;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Map;

/**
 * Each owner's bytes derived again from its type and shape at the request's bindings, for
 * {@link PlanValidator#validate(dev.memplan.ActivationPlan, Map)}: its own walk over the dims, in
 * unbounded integers, sharing no code with the size rule the planner uses ({@code TensorSizes},
 * {@code Shape.elementCount}, {@code Dim.evaluate}). A wrong size rule there gives a plan whose
 * sizes differ from these, which the validator reports.
 */
final class IndependentSizes {
    private static final BigInteger EIGHT = BigInteger.valueOf(8);

    private IndependentSizes() {
    }

    /**
     * {@return the bytes of {@code value} at {@code bindings}, rounded up to {@code alignment}; null
     * when a symbol is unbound or the type has no fixed width} {@code ceil(elements * bits / 8)}:
     * sub-byte types pack.
     */
    static BigInteger bytes(Value value, Map<String, Long> bindings, long alignment) {
        if (!value.dataType().hasFixedWidth()) {
            return null;
        }
        BigInteger elements = BigInteger.ONE;
        for (Dim d : value.shape().dims()) {
            BigInteger extent = extent(d, bindings);
            if (extent == null) {
                return null;
            }
            elements = elements.multiply(extent);
        }
        BigInteger bits = elements.multiply(BigInteger.valueOf(value.dataType().bits()));
        BigInteger bytes = bits.add(EIGHT.subtract(BigInteger.ONE)).divide(EIGHT);
        BigInteger align = BigInteger.valueOf(alignment);
        return bytes.add(align.subtract(BigInteger.ONE)).divide(align).multiply(align);
    }

    /** One dim's extent, or null when it needs an unbound symbol. */
    private static BigInteger extent(Dim d, Map<String, Long> bindings) {
        if (d instanceof Dim.Fixed f) {
            return BigInteger.valueOf(f.extent());
        }
        if (d instanceof Symbol s) {
            Long bound = bindings.get(s.name());
            return bound == null ? null : BigInteger.valueOf(bound);
        }
        Dim.Derived e = (Dim.Derived) d;
        BigInteger[] operands = new BigInteger[e.operands().size()];
        for (int i = 0; i < operands.length; i++) {
            operands[i] = extent(e.operands().get(i), bindings);
            if (operands[i] == null) {
                return null;
            }
        }
        BigInteger c = BigInteger.valueOf(e.constant());
        BigInteger acc = c;
        switch (e.op()) {
            case SUM -> {
                for (BigInteger x : operands) {
                    acc = acc.add(x);
                }
            }
            case PRODUCT -> {
                for (BigInteger x : operands) {
                    acc = acc.multiply(x);
                }
            }
            case FLOOR_DIV -> acc = new BigDecimal(operands[0]).divide(new BigDecimal(c), 0,
                    RoundingMode.FLOOR).toBigIntegerExact();
            case CEIL_DIV -> acc = new BigDecimal(operands[0]).divide(new BigDecimal(c), 0,
                    RoundingMode.CEILING).toBigIntegerExact();
            case MAX -> {
                for (BigInteger x : operands) {
                    acc = acc.max(x);
                }
            }
            case MIN -> {
                for (BigInteger x : operands) {
                    acc = acc.min(x);
                }
            }
            default -> throw new IllegalStateException("a derived dim of unknown op " + e.op());
        }
        return acc;
    }
}
