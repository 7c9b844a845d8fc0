// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Dim.Symbol;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/** The dims of a tensor. Rank 0 is a scalar: one element. */
public record Shape(List<Dim> dims) {

    /** The scalar shape. */
    public static final Shape SCALAR = new Shape(List.of());

    /**
     * Copies the dims.
     *
     * @param dims the dims, outermost first
     */
    public Shape {
        dims = List.copyOf(dims);
    }

    /**
     * A shape from a mix of numbers (static extents), strings (symbol names) and {@link Dim}s, as
     * in {@code Shape.of(1, "seq", 768)}.
     *
     * @param dims each a {@code Long}/{@code Integer} extent, a {@code String} symbol name, or a {@link Dim}
     * @return the shape
     */
    public static Shape of(Object... dims) {
        List<Dim> out = new ArrayList<>(dims.length);
        for (Object d : dims) {
            if (d instanceof Dim dim) {
                out.add(dim);
            } else if (d instanceof Number n) {
                out.add(Dim.of(n.longValue()));
            } else if (d instanceof String s) {
                out.add(Dim.symbol(s));
            } else {
                throw new IllegalArgumentException("a dim is a number, a symbol name or a Dim, got " + d);
            }
        }
        return new Shape(out);
    }

    /**
     * {@return a static shape}
     *
     * @param extents the static extents, each >= 0
     */
    public static Shape fixed(long... extents) {
        return new Shape(Arrays.stream(extents).mapToObj(Dim::of).map(Dim.class::cast).toList());
    }

    /** {@return the number of dims (0 for a scalar)} */
    public int rank() {
        return dims.size();
    }

    /** {@return whether every dim is static} */
    public boolean isStatic() {
        for (Dim d : dims) {
            if (!d.isStatic()) {
                return false;
            }
        }
        return true;
    }

    /** {@return the named symbols the shape depends on, in first-use order} */
    public Set<Symbol> symbols() {
        Set<Symbol> out = new LinkedHashSet<>();
        for (Dim d : dims) {
            out.addAll(d.symbols());
        }
        return out;
    }

    /**
     * The number of elements under {@code bindings}, or empty when a symbol is unbound.
     *
     * <p>The answer never depends on the order of the dims. Every dim is evaluated first; then a
     * negative dim is an error, an unbound symbol makes the count unknown, a zero dim makes it 0
     * (an empty tensor holds no elements, however large its other dims), and otherwise a product
     * that does not fit a long is an error. A single dim whose own value overflows is an error.
     *
     * @param bindings symbol name to value
     * @return the element count, or empty when a symbol is unbound
     *
     * @throws ArithmeticException when the count overflows a long or a dim evaluates negative
     */
    public OptionalLong elementCount(Map<String, Long> bindings) {
        long[] extents = new long[dims.size()];
        boolean unbound = false;
        for (int i = 0; i < extents.length; i++) {
            OptionalLong extent = dims.get(i).evaluate(bindings);
            if (extent.isEmpty()) {
                unbound = true;
                continue;
            }
            if (extent.getAsLong() < 0) {
                throw new ArithmeticException("dim " + dims.get(i) + " evaluates to " + extent.getAsLong());
            }
            extents[i] = extent.getAsLong();
        }
        return unbound ? OptionalLong.empty() : OptionalLong.of(Dim.Derived.product(extents));
    }

    @Override
    public String toString() {
        return dims.toString();
    }
}
