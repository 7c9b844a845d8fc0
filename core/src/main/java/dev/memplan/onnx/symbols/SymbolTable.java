// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The symbols of one model (main graph and bodies): named dim_params, and fresh symbols for
 * unnamed or data-dependent dims, each with a unique name and a note on where it came from; and
 * the relations inference proves between them.
 */
public final class SymbolTable {
    /** Every name in use, with the order of its first use. */
    private final Map<String, Integer> used = new HashMap<>();
    private final Map<String, String> freshOrigins = new LinkedHashMap<>();
    private final RelationLog relations = new RelationLog();

    public Symbol named(String name) {
        used.putIfAbsent(name, used.size());
        return new Symbol(name);
    }

    /** Whether {@code name} is already a symbol of the model. */
    public boolean isUsed(String name) {
        return used.containsKey(name);
    }

    public RelationLog relations() {
        return relations;
    }

    /** The relations resolved so far; fresh symbols and later ones become derived first. */
    public SymbolRelations resolveRelations() {
        return SymbolRelations.resolve(relations.relations(), name -> (freshOrigins.containsKey(name) ? 1 << 30 : 0)
                + used.getOrDefault(name, 0));
    }

    /** A new symbol named after {@code base}, unique in the model. */
    public Dim fresh(String base, String origin) {
        String clean = base.isEmpty() ? "dim" : base;
        String name = clean;
        for (int i = 2; used.containsKey(name); i++) {
            name = clean + "_" + i;
        }
        used.put(name, used.size());
        freshOrigins.put(name, origin);
        return new Symbol(name);
    }

    /** Fresh symbols by name, with where each came from. */
    public Map<String, String> freshOrigins() {
        return freshOrigins;
    }
}
