// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.Dim;
import dev.memplan.Symbol;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The symbols of one model (main graph and bodies): named dim_params, and fresh symbols for
 * unnamed or data-dependent dims, each with a unique name and a note on where it came from.
 */
final class SymbolTable {
    private final Set<String> used = new HashSet<>();
    private final Map<String, String> freshOrigins = new LinkedHashMap<>();

    Symbol named(String name) {
        used.add(name);
        return new Symbol(name);
    }

    /** A new symbol named after {@code base}, unique in the model. */
    Dim fresh(String base, String origin) {
        String clean = base.isEmpty() ? "dim" : base;
        String name = clean;
        for (int i = 2; used.contains(name); i++) {
            name = clean + "_" + i;
        }
        used.add(name);
        freshOrigins.put(name, origin);
        return new Symbol(name);
    }

    /** Fresh symbols by name, with where each came from. */
    Map<String, String> freshOrigins() {
        return freshOrigins;
    }
}
