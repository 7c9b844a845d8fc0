// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A one-element boolean that shape inference knows as an expression of symbols rather than a
 * constant: {@code Equal(Gather(Shape(x), 1), 1)} is {@code x_dim1 == 1}, {@code Equal(sr, 16000)}
 * is {@code sr == 16000} once the input {@code sr} has a value symbol. An If node whose condition
 * is one of these is decided from the request's bindings ({@link #evaluate}), without re-running
 * inference.
 */
public sealed interface SymCondition {

    /**
     * The condition's value at {@code bindings}.
     *
     * @return true or false, or empty while a symbol it reads is unbound
     */
    Optional<Boolean> evaluate(Map<String, Long> bindings);

    /** How two integers compare: the comparison ops of the registry, and the non-zero test. */
    enum Comparison {
        EQUAL("=="), NOT_EQUAL("!="), LESS("<"), LESS_OR_EQUAL("<="), GREATER(">"), GREATER_OR_EQUAL(">=");

        private final String sign;

        Comparison(String sign) {
            this.sign = sign;
        }

        /** {@return whether the comparison holds when {@code Long.compare} gave {@code cmp}} */
        boolean holds(int cmp) {
            return switch (this) {
                case EQUAL -> cmp == 0;
                case NOT_EQUAL -> cmp != 0;
                case LESS -> cmp < 0;
                case LESS_OR_EQUAL -> cmp <= 0;
                case GREATER -> cmp > 0;
                case GREATER_OR_EQUAL -> cmp >= 0;
            };
        }
    }

    /** How two conditions combine. */
    enum Logic {
        AND, OR, XOR
    }

    /** A comparison of two integers, at least one symbolic. */
    record Compare(Comparison op, SymInt left, SymInt right) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            OptionalLong a = value(left, bindings);
            OptionalLong b = value(right, bindings);
            if (a.isEmpty() || b.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(op.holds(Long.compare(a.getAsLong(), b.getAsLong())));
        }

        private static OptionalLong value(SymInt x, Map<String, Long> bindings) {
            return x.isConst() ? OptionalLong.of(x.constant()) : x.dim().evaluate(bindings);
        }

        @Override
        public String toString() {
            return left + " " + op.sign + " " + right;
        }
    }

    /** The negation of a condition. */
    record Not(SymCondition inner) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            return inner.evaluate(bindings).map(b -> !b);
        }

        @Override
        public String toString() {
            return "not (" + inner + ")";
        }
    }

    /** {@code And}, {@code Or} or {@code Xor} of two conditions. */
    record Logical(Logic op, SymCondition left, SymCondition right) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            Optional<Boolean> a = left.evaluate(bindings);
            Optional<Boolean> b = right.evaluate(bindings);
            // a known side may decide And / Or alone
            if (op == Logic.AND && (a.equals(Optional.of(false)) || b.equals(Optional.of(false)))) {
                return Optional.of(false);
            }
            if (op == Logic.OR && (a.equals(Optional.of(true)) || b.equals(Optional.of(true)))) {
                return Optional.of(true);
            }
            if (a.isEmpty() || b.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(switch (op) {
                case AND -> a.get() && b.get();
                case OR -> a.get() || b.get();
                case XOR -> a.get() ^ b.get();
            });
        }

        @Override
        public String toString() {
            return "(" + left + ") " + op.name().toLowerCase(Locale.ROOT) + " (" + right + ")";
        }
    }

    /** A condition that is a constant: what a decided sub-expression of And / Or becomes. */
    record Constant(boolean value) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            return Optional.of(value);
        }

        @Override
        public String toString() {
            return Boolean.toString(value);
        }
    }

    /**
     * The condition a comparison of two one-element integer tensors makes, or null when they are
     * not both known.
     */
    static SymCondition compare(Comparison op, SymInt[] a, SymInt[] b) {
        if (a == null || b == null || a.length != 1 || b.length != 1) {
            return null;
        }
        return new Compare(op, a[0], b[0]);
    }

    /**
     * What a one-element tensor says as a condition: its {@link TensorInfo#condition}, else its
     * integer value (non-zero is true), else null when nothing is known.
     */
    static SymCondition of(TensorInfo t) {
        if (t == null) {
            return null;
        }
        if (t.condition != null) {
            return t.condition;
        }
        if (t.ints != null && t.ints.length == 1) {
            SymInt v = t.ints[0];
            return v.isConst() ? new Constant(v.constant() != 0) : new Compare(Comparison.NOT_EQUAL, v, SymInt.of(0));
        }
        if (t.floats != null && t.floats.length == 1) {
            return new Constant(t.floats[0] != 0);
        }
        return null;
    }
}
