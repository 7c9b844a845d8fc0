// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

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
