// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.rules.OpRegistry;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/** Facts about one ONNX node the import steps share: its label, its domain, what it reads. */
final class Nodes {
    private Nodes() {
    }

    /** {@code node 3 'name' (Op)}, or {@code node 3 (domain:Op)}: how messages name a node. */
    static String describe(NodeProto node, int index) {
        String op = node.getDomain().isEmpty() ? node.getOpType() : node.getDomain() + ":" + node.getOpType();
        return node.getName().isEmpty() ? "node " + index + " (" + op + ")"
                : "node " + index + " '" + node.getName() + "' (" + op + ")";
    }

    /** Whether the node is in the default ONNX domain ({@code ""} or {@code "ai.onnx"}). */
    static boolean isDefaultDomain(NodeProto node) {
        return OpRegistry.canonicalDomain(node.getDomain()).isEmpty();
    }

    /** {@return which op the importer handles itself the node is (registry), or null} */
    static OpRegistry.Structure structure(NodeProto node) {
        return OpRegistry.DEFAULT.structure(node.getDomain(), node.getOpType());
    }

    /** Whether the node is an If, Loop or Scan, whose bodies the importer imports as graphs. */
    static boolean isControlFlow(NodeProto node) {
        OpRegistry.Structure s = structure(node);
        return s != null && s.isControlFlow();
    }

    /** Whether the node is a default-domain Constant. */
    static boolean isConstant(NodeProto node) {
        return structure(node) == OpRegistry.Structure.CONSTANT;
    }

    /** Names a node reads: its inputs plus the outer names its bodies read. */
    static Set<String> reads(NodeProto node) {
        Set<String> out = new LinkedHashSet<>();
        for (String in : node.getInputList()) {
            if (!in.isEmpty()) {
                out.add(in);
            }
        }
        out.addAll(freeNames(node));
        return out;
    }

    /** A body still to scan, with the names its enclosing bodies define. */
    private record PendingBody(GraphProto graph, Set<String> enclosingDefined) {
    }

    /**
     * The names a node's bodies read that they do not define: outer values. Walks nested bodies
     * breadth-first (a queue, so names come in attribute order, outer bodies first).
     */
    static Set<String> freeNames(NodeProto node) {
        Set<String> free = new LinkedHashSet<>();
        ArrayDeque<PendingBody> queue = new ArrayDeque<>();
        for (var g : Attrs.subgraphs(node)) {
            queue.addLast(new PendingBody(g.getValue(), Set.of()));
        }
        while (!queue.isEmpty()) {
            PendingBody body = queue.pollFirst();
            GraphProto g = body.graph();
            Set<String> defined = new HashSet<>(body.enclosingDefined());
            g.getInputList().forEach(v -> defined.add(v.getName()));
            g.getInitializerList().forEach(t -> defined.add(t.getName()));
            g.getSparseInitializerList().forEach(t -> defined.add(t.getValues().getName()));
            for (NodeProto n : g.getNodeList()) {
                defined.addAll(n.getOutputList());
            }
            for (NodeProto n : g.getNodeList()) {
                for (String in : n.getInputList()) {
                    if (!in.isEmpty() && !defined.contains(in)) {
                        free.add(in);
                    }
                }
                for (var sub : Attrs.subgraphs(n)) {
                    queue.addLast(new PendingBody(sub.getValue(), defined));
                }
            }
            for (var out : g.getOutputList()) {
                if (!defined.contains(out.getName())) {
                    free.add(out.getName());
                }
            }
        }
        return free;
    }
}
