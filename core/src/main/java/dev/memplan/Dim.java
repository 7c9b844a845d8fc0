// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One dimension of a {@link Shape}: a static extent, a named {@link Symbol} the caller binds
 * (batch, sequence length), or a {@link Derived} that shape inference builds from them.
 *
 * <p>Every dim is monotone in its symbols: binding a symbol to a larger value never makes the
 * extent smaller. That is what makes a plan made at upper bounds valid below them.
 */
public sealed interface Dim permits Dim.Fixed, Dim.Symbol, Dim.Derived {

    /**
     * The extent under {@code bindings} (symbol name to value), or empty when a symbol it uses has
     * no binding.
     *
     * @param bindings symbol name to value
     * @return the extent, or empty when a symbol is unbound
     * @throws ArithmeticException when the extent overflows a long
     */
    OptionalLong evaluate(Map<String, Long> bindings);

    /** {@return whether the extent is known without bindings} */
    boolean isStatic();

    /** {@return the named symbols this dim depends on, in first-use order} */
    Set<Symbol> symbols();

    /**
     * {@return a static extent}
     *
     * @param extent the extent, >= 0
     */
    static Fixed of(long extent) {
        return new Fixed(extent);
    }

    /**
     * {@return a named symbol}
     *
     * @param name the symbol's name, not empty
     */
    static Symbol symbol(String name) {
        return new Symbol(name);
    }

    /** A static extent; never negative. */
    record Fixed(long extent) implements Dim {
        /**
         * Rejects a negative extent.
         *
         * @param extent the extent, >= 0
         */
        public Fixed {
            if (extent < 0) {
                throw new IllegalArgumentException("a static dim must be >= 0, got " + extent);
            }
        }

        @Override
        public OptionalLong evaluate(Map<String, Long> bindings) {
            return OptionalLong.of(extent);
        }

        @Override
        public boolean isStatic() {
            return true;
        }

        @Override
        public Set<Symbol> symbols() {
            return Set.of();
        }

        @Override
        public String toString() {
            return Long.toString(extent);
        }
    }

    /**
     * A named dimension the caller binds, such as {@code batch} or {@code seq}. Two symbols with the
     * same name are the same symbol: a graph interns them by name.
     */
    public record Symbol(String name) implements Dim {
        /**
         * Rejects an empty name.
         *
         * @param name the symbol's name, not empty
         */
        public Symbol {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a symbol needs a non-empty name");
            }
        }

        @Override
        public OptionalLong evaluate(Map<String, Long> bindings) {
            Long bound = bindings.get(name);
            if (bound == null) {
                return OptionalLong.empty();
            }
            if (bound < 0) {
                throw new IllegalArgumentException("symbol '" + name + "' is bound to " + bound
                        + "; bind it to a value >= 0");
            }
            return OptionalLong.of(bound);
        }

        @Override
        public boolean isStatic() {
            return false;
        }

        @Override
        public Set<Symbol> symbols() {
            return Set.of(this);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * A dim computed from other dims: what shape inference derives when, say, a convolution halves
     * a symbolic height or a concat adds two symbolic lengths.
     *
     * <p>Only operations that keep the extent monotone in its symbols are offered: sums (with a
     * constant that may be negative, as a convolution's {@code -kernel+1} is), products, floor and
     * ceiling division by a positive constant, max and min. The factories fold static operands, so an
     * expression over static dims alone is always a {@link Dim.Fixed}.
     */
    public record Derived(Op op, List<Dim> operands, long constant) implements Dim {

        /** The operation of a derived dim. */
        public enum Op {
            /** sum of the operands plus {@code constant} */
            SUM,
            /** product of the operands times {@code constant} ({@code constant > 0}) */
            PRODUCT,
            /** the single operand divided by {@code constant > 0}, rounded down */
            FLOOR_DIV,
            /** the single operand divided by {@code constant > 0}, rounded up */
            CEIL_DIV,
            /** the largest operand (the constant is a floor, {@code Long.MIN_VALUE} for none) */
            MAX,
            /** the smallest operand (the constant is a ceiling, {@code Long.MAX_VALUE} for none) */
            MIN
        }

        /**
         * Validates the expression: a known op, at least one operand, a positive divisor for divisions.
         *
         * @param op the operation
         * @param operands the dims it combines
         * @param constant the constant term (sum), factor (product), divisor (divisions) or bound (max, min)
         */
        public Derived {
            operands = List.copyOf(operands);
            if (operands.isEmpty()) {
                throw new IllegalArgumentException(op + " needs at least one operand");
            }
            if ((op == Op.FLOOR_DIV || op == Op.CEIL_DIV) && (operands.size() != 1 || constant <= 0)) {
                throw new IllegalArgumentException(op + " divides one operand by a positive constant");
            }
            if (op == Op.PRODUCT && constant <= 0) {
                throw new IllegalArgumentException("a product's constant factor must be positive");
            }
        }

        /**
         * {@return {@code a + b + ... + constant}, folded}
         *
         * @param terms the dims to add
         * @param constant a constant added to the sum
         */
        public static Dim sum(List<? extends Dim> terms, long constant) {
            List<Dim> symbolic = new ArrayList<>();
            long c = constant;
            for (Dim d : terms) {
                if (d instanceof Dim.Fixed f) {
                    c = Math.addExact(c, f.extent());
                } else if (d instanceof Derived dd && dd.op == Op.SUM) {
                    symbolic.addAll(dd.operands);
                    c = Math.addExact(c, dd.constant);
                } else {
                    symbolic.add(d);
                }
            }
            if (symbolic.isEmpty()) {
                return Dim.of(c);
            }
            if (symbolic.size() == 1 && c == 0) {
                return symbolic.get(0);
            }
            return new Derived(Op.SUM, symbolic, c);
        }

        /**
         * {@return {@code a * b * ...}, folded}
         *
         * @param factors the dims to multiply
         */
        public static Dim product(List<? extends Dim> factors) {
            List<Dim> symbolic = new ArrayList<>();
            long c = 1;
            for (Dim d : factors) {
                if (d instanceof Dim.Fixed f && f.extent() == 0) {
                    return Dim.of(0); // a zero factor wins over any overflow of the others
                }
            }
            for (Dim d : factors) {
                if (d instanceof Dim.Fixed f) {
                    c = Math.multiplyExact(c, f.extent());
                } else if (d instanceof Derived dd && dd.op == Op.PRODUCT) {
                    symbolic.addAll(dd.operands);
                    c = Math.multiplyExact(c, dd.constant);
                } else {
                    symbolic.add(d);
                }
            }
            if (c == 0 || symbolic.isEmpty()) {
                return Dim.of(c);
            }
            if (symbolic.size() == 1 && c == 1) {
                return symbolic.get(0);
            }
            return new Derived(Op.PRODUCT, symbolic, c);
        }

        /**
         * {@return {@code floor(d / divisor)} or {@code ceil(d / divisor)}, folded}
         *
         * @param d the dividend
         * @param divisor the divisor, > 0
         * @param ceil true to round up, false to round down
         */
        public static Dim divide(Dim d, long divisor, boolean ceil) {
            if (divisor <= 0) {
                throw new IllegalArgumentException("a dim can only be divided by a positive constant, got " + divisor);
            }
            if (d instanceof Dim.Fixed f) {
                return Dim.of(ceil ? Math.floorDiv(f.extent() + divisor - 1, divisor) : f.extent() / divisor);
            }
            if (divisor == 1) {
                return d;
            }
            return new Derived(ceil ? Op.CEIL_DIV : Op.FLOOR_DIV, List.of(d), divisor);
        }

        /**
         * {@return the largest of {@code dims}, folded}
         *
         * @param dims the dims, at least one
         */
        public static Dim max(List<? extends Dim> dims) {
            return extreme(Op.MAX, dims);
        }

        /**
         * {@return the smallest of {@code dims}, folded}
         *
         * @param dims the dims, at least one
         */
        public static Dim min(List<? extends Dim> dims) {
            return extreme(Op.MIN, dims);
        }

        private static Dim extreme(Op op, List<? extends Dim> dims) {
            boolean isMax = op == Op.MAX;
            long c = isMax ? Long.MIN_VALUE : Long.MAX_VALUE;
            Set<Dim> symbolic = new LinkedHashSet<>();
            for (Dim d : dims) {
                if (d instanceof Dim.Fixed f) {
                    c = isMax ? Math.max(c, f.extent()) : Math.min(c, f.extent());
                } else {
                    symbolic.add(d);
                }
            }
            if (symbolic.isEmpty()) {
                if (dims.isEmpty()) {
                    throw new IllegalArgumentException(op + " of no dims");
                }
                return Dim.of(c);
            }
            if (symbolic.size() == 1 && c == (isMax ? Long.MIN_VALUE : Long.MAX_VALUE)) {
                return symbolic.iterator().next();
            }
            return new Derived(op, new ArrayList<>(symbolic), c);
        }

        @Override
        public OptionalLong evaluate(Map<String, Long> bindings) {
            long acc;
            switch (op) {
                case SUM -> {
                    acc = constant;
                    for (Dim d : operands) {
                        OptionalLong v = d.evaluate(bindings);
                        if (v.isEmpty()) {
                            return v;
                        }
                        acc = Math.addExact(acc, v.getAsLong());
                    }
                }
                case PRODUCT -> {
                    // evaluate every factor before multiplying: a zero factor wins over an overflow,
                    // whatever the order (see #product)
                    long[] factors = new long[operands.size() + 1];
                    factors[0] = constant;
                    for (int i = 0; i < operands.size(); i++) {
                        OptionalLong v = operands.get(i).evaluate(bindings);
                        if (v.isEmpty()) {
                            return v;
                        }
                        factors[i + 1] = v.getAsLong();
                    }
                    acc = product(factors);
                }
                case FLOOR_DIV, CEIL_DIV -> {
                    OptionalLong v = operands.get(0).evaluate(bindings);
                    if (v.isEmpty()) {
                        return v;
                    }
                    acc = op == Op.FLOOR_DIV ? Math.floorDiv(v.getAsLong(), constant)
                            : -Math.floorDiv(-v.getAsLong(), constant);
                }
                case MAX, MIN -> {
                    acc = constant;
                    for (Dim d : operands) {
                        OptionalLong v = d.evaluate(bindings);
                        if (v.isEmpty()) {
                            return v;
                        }
                        acc = op == Op.MAX ? Math.max(acc, v.getAsLong()) : Math.min(acc, v.getAsLong());
                    }
                }
                default -> throw new AssertionError(op);
            }
            return OptionalLong.of(acc);
        }

        @Override
        public boolean isStatic() {
            return false;
        }

        @Override
        public Set<Symbol> symbols() {
            Set<Symbol> out = new LinkedHashSet<>();
            for (Dim d : operands) {
                out.addAll(d.symbols());
            }
            return Collections.unmodifiableSet(out);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            switch (op) {
                case SUM -> {
                    sb.append('(');
                    join(sb, " + ");
                    if (constant > 0) {
                        sb.append(" + ").append(constant);
                    } else if (constant < 0) {
                        sb.append(" - ").append(-constant);
                    }
                    sb.append(')');
                }
                case PRODUCT -> {
                    sb.append('(');
                    if (constant != 1) {
                        sb.append(constant).append(" * ");
                    }
                    join(sb, " * ");
                    sb.append(')');
                }
                case FLOOR_DIV -> sb.append("floor(").append(operands.get(0)).append(" / ").append(constant).append(')');
                case CEIL_DIV -> sb.append("ceil(").append(operands.get(0)).append(" / ").append(constant).append(')');
                case MAX, MIN -> {
                    sb.append(op == Op.MAX ? "max(" : "min(");
                    join(sb, ", ");
                    if (constant != (op == Op.MAX ? Long.MIN_VALUE : Long.MAX_VALUE)) {
                        sb.append(", ").append(constant);
                    }
                    sb.append(')');
                }
                default -> throw new AssertionError(op);
            }
            return sb.toString();
        }

        private void join(StringBuilder sb, String sep) {
            for (int i = 0; i < operands.size(); i++) {
                if (i > 0) {
                    sb.append(sep);
                }
                sb.append(operands.get(i));
            }
        }

        /**
         * The product of {@code extents}: 0 when any is 0, else the exact product. Without a zero
         * factor every partial product is at least as large (in magnitude) as the one before, so an
         * overflow anywhere means the whole product overflows: the order of the factors never matters.
         *
         * @throws ArithmeticException when no extent is 0 and the product overflows a long
         */
        static long product(long[] extents) {
            for (long e : extents) {
                if (e == 0) {
                    return 0;
                }
            }
            long n = 1;
            for (long e : extents) {
                n = Math.multiplyExact(n, e);
            }
            return n;
        }
    }
}
