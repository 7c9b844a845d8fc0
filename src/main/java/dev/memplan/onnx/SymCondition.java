// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

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
sealed interface SymCondition {

    /**
     * The condition's value at {@code bindings}.
     *
     * @return true or false, or empty while a symbol it reads is unbound
     */
    Optional<Boolean> evaluate(Map<String, Long> bindings);

    /** A comparison of two integers, at least one symbolic. */
    record Compare(String op, SymInt left, SymInt right) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            OptionalLong a = value(left, bindings);
            OptionalLong b = value(right, bindings);
            if (a.isEmpty() || b.isEmpty()) {
                return Optional.empty();
            }
            int cmp = Long.compare(a.getAsLong(), b.getAsLong());
            return Optional.of(switch (op) {
                case "Equal" -> cmp == 0;
                case "NotEqual" -> cmp != 0;
                case "Less" -> cmp < 0;
                case "LessOrEqual" -> cmp <= 0;
                case "Greater" -> cmp > 0;
                default -> cmp >= 0; // GreaterOrEqual: the only other op {@link #compare} makes
            });
        }

        private static OptionalLong value(SymInt x, Map<String, Long> bindings) {
            return x.isConst() ? OptionalLong.of(x.constant()) : x.dim().evaluate(bindings);
        }

        @Override
        public String toString() {
            String sign = switch (op) {
                case "Equal" -> "==";
                case "NotEqual" -> "!=";
                case "Less" -> "<";
                case "LessOrEqual" -> "<=";
                case "Greater" -> ">";
                default -> ">=";
            };
            return left + " " + sign + " " + right;
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
    record Logical(String op, SymCondition left, SymCondition right) implements SymCondition {
        @Override
        public Optional<Boolean> evaluate(Map<String, Long> bindings) {
            Optional<Boolean> a = left.evaluate(bindings);
            Optional<Boolean> b = right.evaluate(bindings);
            // a known side may decide And / Or alone
            if (op.equals("And") && (a.equals(Optional.of(false)) || b.equals(Optional.of(false)))) {
                return Optional.of(false);
            }
            if (op.equals("Or") && (a.equals(Optional.of(true)) || b.equals(Optional.of(true)))) {
                return Optional.of(true);
            }
            if (a.isEmpty() || b.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(switch (op) {
                case "And" -> a.get() && b.get();
                case "Or" -> a.get() || b.get();
                default -> a.get() ^ b.get();
            });
        }

        @Override
        public String toString() {
            return "(" + left + ") " + op.toLowerCase(java.util.Locale.ROOT) + " (" + right + ")";
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
    static SymCondition compare(String op, SymInt[] a, SymInt[] b) {
        if (a == null || b == null || a.length != 1 || b.length != 1) {
            return null;
        }
        return switch (op) {
            case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual" -> new Compare(op, a[0], b[0]);
            default -> null;
        };
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
            return v.isConst() ? new Constant(v.constant() != 0) : new Compare("NotEqual", v, SymInt.of(0));
        }
        if (t.floats != null && t.floats.length == 1) {
            return new Constant(t.floats[0] != 0);
        }
        return null;
    }
}
