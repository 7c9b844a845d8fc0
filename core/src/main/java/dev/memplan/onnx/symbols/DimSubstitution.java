// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Replaces symbols in a dim expression by other expressions, refolding what becomes static. */
public final class DimSubstitution {
    /** Dim expressions larger than this fall back to a fresh symbol: keeps every step cheap. */
    private static final int MAX_DIM_TERMS = 64;

    private DimSubstitution() {
    }

    /**
     * Whether any dim's expression tree has more than {@link #MAX_DIM_TERMS} nodes (early exit).
     *
     * @param shape the dims
     * @return true when the expressions are too large to keep
     */
    public static boolean tooComplex(List<Dim> shape) {
        ArrayDeque<Dim> stack = new ArrayDeque<>(shape);
        int seen = 0;
        while (!stack.isEmpty()) {
            Dim d = stack.pop();
            if (++seen > MAX_DIM_TERMS * Math.max(1, shape.size())) {
                return true;
            }
            if (d instanceof Dim.Derived dd) {
                dd.operands().forEach(stack::push);
            }
        }
        return false;
    }

    /** {@code d} with every symbol named in {@code defs} replaced by its expression. */
    public static Dim apply(Dim d, Map<String, Dim> defs) {
        if (defs.isEmpty()) {
            return d;
        }
        if (d instanceof Symbol s) {
            return defs.getOrDefault(s.name(), s);
        }
        if (!(d instanceof Dim.Derived dd)) {
            return d;
        }
        List<Dim> ops = new ArrayList<>();
        boolean changed = false;
        for (Dim o : dd.operands()) {
            Dim n = apply(o, defs);
            changed |= n != o;
            ops.add(n);
        }
        if (!changed) {
            return d;
        }
        return switch (dd.op()) {
            case SUM -> Dim.Derived.sum(ops, dd.constant());
            case PRODUCT -> {
                ops.add(Dim.of(dd.constant()));
                yield Dim.Derived.product(ops);
            }
            case FLOOR_DIV -> Dim.Derived.divide(ops.get(0), dd.constant(), false);
            case CEIL_DIV -> Dim.Derived.divide(ops.get(0), dd.constant(), true);
            case MAX, MIN -> extreme(dd, ops);
        };
    }

    private static Dim extreme(Dim.Derived dd, List<Dim> ops) {
        boolean none = dd.constant() == (dd.op() == Dim.Derived.Op.MAX ? Long.MIN_VALUE : Long.MAX_VALUE);
        if (none || dd.constant() >= 0) {
            List<Dim> all = new ArrayList<>(ops);
            if (!none) {
                all.add(Dim.of(dd.constant()));
            }
            return dd.op() == Dim.Derived.Op.MAX ? Dim.Derived.max(all) : Dim.Derived.min(all);
        }
        return new Dim.Derived(dd.op(), ops, dd.constant()); // a negative bound: keep it as written
    }

    /** Whether {@code d} mentions the symbol {@code name}. */
    static boolean mentions(Dim d, String name) {
        return d.symbols().stream().anyMatch(s -> s.name().equals(name));
    }
}
