// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.onnx.symbols.SymbolRelation;
import dev.memplan.onnx.symbols.SymbolRelations;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The largest value each symbol of a model may take, read from the relations its import proved: a
 * relation {@code s = min(s, c)} (MiniLM's position table: {@code sequence_length = min(sequence_length,
 * 512)}) holds only for {@code s <= c}. Symbols without such a relation have no limit. Immutable.
 */
final class SymbolLimits {
    /** One symbol's limit with the relation that imposes it, for messages. */
    record Limit(String symbol, long max, SymbolRelation relation) {
    }

    private final Map<String, Limit> limits;

    SymbolLimits(SymbolRelations relations) {
        Map<String, Limit> m = new LinkedHashMap<>();
        for (SymbolRelation rel : relations.checks()) {
            collect(rel.left(), rel.right(), rel, m);
            collect(rel.right(), rel.left(), rel, m);
        }
        limits = Collections.unmodifiableMap(m);
    }

    private static void collect(Dim side, Dim other, SymbolRelation rel, Map<String, Limit> out) {
        if (!(side instanceof Symbol s) || !(other instanceof Dim.Derived d) || d.op() != Dim.Derived.Op.MIN
                || d.constant() == Long.MAX_VALUE || !d.operands().contains(s)) {
            return;
        }
        // s = min(s, ..., c) forces s <= c: above c the right side is at most c, below s
        Limit old = out.get(s.name());
        if (old == null || d.constant() < old.max()) {
            out.put(s.name(), new Limit(s.name(), d.constant(), rel));
        }
    }

    Map<String, Limit> all() {
        return limits;
    }

    /**
     * Throws when a binding is above its symbol's limit.
     *
     * @throws ModelLimitException naming the symbol, its limit and the node that imposes it
     */
    void check(Map<String, Long> bindings) {
        for (Limit l : limits.values()) {
            Long v = bindings.get(l.symbol());
            if (v != null && v > l.max()) {
                throw new ModelLimitException(l.symbol(), v, l.max(), l.relation().node());
            }
        }
    }
}
