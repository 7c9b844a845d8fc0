// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;
import java.util.ArrayList;
import java.util.List;

/**
 * The relations shape inference proves while it imports one model (main graph and bodies), in the
 * order it proves them. {@link SymbolRelations#resolve} turns them into derived symbols and checks.
 */
public final class RelationLog {
    /** More relations than this are not recorded: keeps resolution cheap on hostile models. */
    static final int MAX_RELATIONS = 2_000;

    private final List<SymbolRelation> relations = new ArrayList<>();

    /** Records {@code a == b}; trivial relations (equal dims, two static extents) are skipped. */
    public void record(Dim a, Dim b, String node, String why, boolean broadcast) {
        if (a == null || b == null || a.equals(b) || (a.isStatic() && b.isStatic())
                || relations.size() >= MAX_RELATIONS || DimSubstitution.tooComplex(List.of(a, b))) {
            return;
        }
        if (broadcast && (Dim.of(1).equals(a) || Dim.of(1).equals(b))) {
            return; // a static 1 broadcasts against anything
        }
        relations.add(new SymbolRelation(a, b, node, why, broadcast));
    }

    List<SymbolRelation> relations() {
        return relations;
    }
}
