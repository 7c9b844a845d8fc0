// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * How a {@link PlanCache} rounds symbol values up before planning, so that one cached plan covers
 * many requests: a plan made at a larger value is valid for every smaller one, because sizes only
 * grow with their symbols. Symbols without a rule are planned at their exact value. Immutable.
 *
 * <pre>{@code
 * Bucketing b = Bucketing.none().multipleOf("sequence_length", 64).powerOfTwo("batch_size");
 * // {batch_size=3, sequence_length=100} is planned as {batch_size=4, sequence_length=128}
 * }</pre>
 */
public final class Bucketing {
    private static final Bucketing NONE = new Bucketing(Map.of());

    /** A rounding rule: a positive multiple, or 0 for "next power of two". */
    private final Map<String, Long> rules;

    private Bucketing(Map<String, Long> rules) {
        this.rules = rules;
    }

    /**
     * Exact values: every distinct binding gets its own plan.
     *
     * @return the policy without rules
     */
    public static Bucketing none() {
        return NONE;
    }

    /**
     * Adds a rule: round {@code symbol} up to a multiple of {@code step} (0 stays 0).
     *
     * @param symbol the symbol name
     * @param step   the multiple, >= 1
     * @return a new policy with the rule, replacing any earlier rule for {@code symbol}
     * @throws IllegalArgumentException when {@code step} is below 1
     */
    public Bucketing multipleOf(String symbol, long step) {
        if (step < 1) {
            throw new IllegalArgumentException("bucket step for '" + symbol + "' must be >= 1, got " + step);
        }
        return with(symbol, step);
    }

    /**
     * Adds a rule: round {@code symbol} up to the next power of two (0 stays 0, 1 stays 1).
     *
     * @param symbol the symbol name
     * @return a new policy with the rule, replacing any earlier rule for {@code symbol}
     */
    public Bucketing powerOfTwo(String symbol) {
        return with(symbol, 0);
    }

    private Bucketing with(String symbol, long rule) {
        Map<String, Long> m = new HashMap<>(rules);
        m.put(Objects.requireNonNull(symbol, "symbol"), rule);
        return new Bucketing(Map.copyOf(m));
    }

    /**
     * The bindings a request is planned at: each symbol with a rule rounded up, the others as given.
     *
     * @param bindings symbol name to value (>= 0)
     * @return the rounded bindings (a new immutable map)
     * @throws IllegalArgumentException naming the symbol when a value is negative or rounding it up
     *                                  overflows a long
     */
    public Map<String, Long> apply(Map<String, Long> bindings) {
        if (rules.isEmpty()) {
            return Map.copyOf(bindings);
        }
        Map<String, Long> out = new HashMap<>(bindings);
        for (Map.Entry<String, Long> r : rules.entrySet()) {
            Long v = out.get(r.getKey());
            if (v != null) {
                out.put(r.getKey(), round(r.getKey(), v, r.getValue()));
            }
        }
        return Map.copyOf(out);
    }

    /** The symbols this policy has rules for, so a cache can check them against its model. */
    Set<String> symbols() {
        return rules.keySet();
    }

    /**
     * {@link #apply(Map)}, but never rounding a symbol past its limit: a value at or below its limit
     * is rounded up to at most the limit (MiniLM's 510 tokens with {@code multipleOf(.., 100)} plan
     * at 512, not 600). A value already above its limit is left for planning to reject.
     */
    Map<String, Long> apply(Map<String, Long> bindings, Map<String, Long> limits) {
        Map<String, Long> out = apply(bindings);
        if (limits.isEmpty()) {
            return out;
        }
        Map<String, Long> clamped = null;
        for (Map.Entry<String, Long> l : limits.entrySet()) {
            Long given = bindings.get(l.getKey());
            Long rounded = out.get(l.getKey());
            if (given != null && given <= l.getValue() && rounded > l.getValue()) {
                if (clamped == null) {
                    clamped = new HashMap<>(out);
                }
                clamped.put(l.getKey(), l.getValue());
            }
        }
        return clamped == null ? out : Map.copyOf(clamped);
    }

    private static long round(String symbol, long value, long rule) {
        if (value < 0) {
            throw new IllegalArgumentException("symbol '" + symbol + "' is bound to " + value + "; values must be >= 0");
        }
        if (value == 0) {
            return 0;
        }
        if (rule == 0) {
            long p = Long.highestOneBit(value);
            if (p == value) {
                return value;
            }
            if (p == Long.highestOneBit(Long.MAX_VALUE)) {
                throw new IllegalArgumentException("symbol '" + symbol + "' = " + value
                        + " has no next power of two in a long; bind a smaller value");
            }
            return p << 1;
        }
        long rem = value % rule;
        if (rem == 0) {
            return value;
        }
        try {
            return Math.addExact(value, rule - rem);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("symbol '" + symbol + "' = " + value + " rounded up to a multiple of "
                    + rule + " overflows a long; bind a smaller value");
        }
    }

    @Override
    public String toString() {
        return rules.isEmpty() ? "exact" : new TreeMap<>(rules).toString().replace("=0", "=pow2");
    }
}
