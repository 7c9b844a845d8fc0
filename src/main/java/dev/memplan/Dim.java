// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One dimension of a {@link Shape}: a static extent, a named {@link Symbol} the caller binds
 * (batch, sequence length), or a {@link DerivedDim} that shape inference builds from them.
 *
 * <p>Every dim is monotone in its symbols: binding a symbol to a larger value never makes the
 * extent smaller. That is what makes a plan made at upper bounds valid below them.
 */
public sealed interface Dim permits Dim.Fixed, Symbol, DerivedDim {

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
}
