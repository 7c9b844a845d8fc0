// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.Dim;

/**
 * Two dims that shape inference proved equal at one node: a MatMul's inner dims, a Concat's other
 * axes, an attention mask and the sequence it masks, or two dims broadcast against each other.
 *
 * @param left      one side
 * @param right     the other side
 * @param node      the node that proves it, as error messages name nodes
 * @param why       what the node requires, in a few words ("MatMul inner dims")
 * @param broadcast true when the two meet in numpy broadcasting: equal unless one of them is 1
 */
public record SymbolRelation(Dim left, Dim right, String node, String why, boolean broadcast) {

    /**
     * Checks the relation at values of its sides.
     *
     * @param l the value of the left side
     * @param r the value of the right side
     * @return whether they satisfy the relation
     */
    public boolean holds(long l, long r) {
        return l == r || (broadcast && (l == 1 || r == 1));
    }

    @Override
    public String toString() {
        return left + " = " + right + " (" + why + " at " + node + (broadcast ? ", unless one side is 1)" : ")");
    }
}
