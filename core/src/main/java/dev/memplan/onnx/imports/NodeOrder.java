// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The import step that orders a graph's nodes: checks that every value has one producer and
 * every name read is defined somewhere, records the names a body reads from enclosing graphs,
 * and sorts the nodes so that each comes after the producers of what it reads. This is the one
 * topological sort of the ONNX importer (the planner orders the imported graph again, by id).
 */
final class NodeOrder {
    private NodeOrder() {
    }

    /**
     * The nodes in dependency order: Kahn's algorithm, smallest index first, so a topologically
     * sorted file keeps its order.
     *
     * @throws OnnxFormatException naming the node or value when a value is produced twice, a name
     *                             is read but never defined, or the nodes form a cycle
     */
    static int[] of(List<NodeProto> nodes, List<ValueInfoProto> graphOutputs, String where, ValueTable values) {
        Map<String, Integer> producer = producers(nodes, where, values);
        int[] pending = new int[nodes.size()];
        Map<String, List<Integer>> consumers = new HashMap<>();
        for (int n = 0; n < nodes.size(); n++) {
            NodeProto node = nodes.get(n);
            for (String in : Nodes.reads(node)) {
                if (producer.containsKey(in)) {
                    if (producer.get(in) == n) {
                        throw new OnnxFormatException(where + ": " + Nodes.describe(node, n) + " reads its own output '"
                                + in + "'; the graph has a cycle");
                    }
                    pending[n]++;
                    consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                } else if (!values.available(in)) {
                    boolean direct = node.getInputList().contains(in);
                    throw new OnnxFormatException(where + ": " + Nodes.describe(node, n)
                            + (direct ? " reads '" : " has a body that reads '") + in
                            + "', which no node produces and which is neither a graph input nor an initializer;"
                            + " the model is incomplete or corrupted");
                }
                noteOuterRef(in, producer, values);
            }
        }
        for (ValueInfoProto out : graphOutputs) {
            String name = out.getName();
            if (!producer.containsKey(name) && !values.available(name)) {
                throw new OnnxFormatException(where + ": graph output '" + name
                        + "' is produced by no node and is neither a graph input nor an initializer");
            }
            noteOuterRef(name, producer, values);
        }
        return kahn(nodes, pending, consumers, where);
    }

    private static void noteOuterRef(String name, Map<String, Integer> producer, ValueTable values) {
        if (values.definedOutside(name) && !values.definedHere(name) && !producer.containsKey(name)) {
            values.addOuterRef(name);
        }
    }

    /** Output name to producing node index; rejects a second producer or a clash with an input. */
    private static Map<String, Integer> producers(List<NodeProto> nodes, String where, ValueTable values) {
        Map<String, Integer> producer = new HashMap<>();
        for (int n = 0; n < nodes.size(); n++) {
            NodeProto node = nodes.get(n);
            for (String out : node.getOutputList()) {
                if (out.isEmpty()) {
                    continue;
                }
                Integer prev = producer.putIfAbsent(out, n);
                if (prev != null) {
                    throw new OnnxFormatException(where + ": value '" + out + "' is produced twice, by "
                            + Nodes.describe(nodes.get(prev), prev) + " and by " + Nodes.describe(node, n)
                            + "; every ONNX value has one producer");
                }
                if (values.definedHere(out)) {
                    throw new OnnxFormatException(where + ": value '" + out + "' is produced by "
                            + Nodes.describe(node, n) + " but is also a graph input or initializer; rename one of them");
                }
            }
        }
        return producer;
    }

    private static int[] kahn(List<NodeProto> nodes, int[] pending, Map<String, List<Integer>> consumers,
                              String where) {
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int n = 0; n < nodes.size(); n++) {
            if (pending[n] == 0) {
                ready.add(n);
            }
        }
        int[] order = new int[nodes.size()];
        int k = 0;
        while (!ready.isEmpty()) {
            int n = ready.poll();
            order[k++] = n;
            for (String out : nodes.get(n).getOutputList()) {
                for (int c : consumers.getOrDefault(out, List.of())) {
                    if (--pending[c] == 0) {
                        ready.add(c);
                    }
                }
                consumers.remove(out);
            }
        }
        if (k != nodes.size()) {
            for (int n = 0; n < nodes.size(); n++) {
                if (pending[n] > 0) {
                    throw new OnnxFormatException(where + ": " + Nodes.describe(nodes.get(n), n)
                            + " is on a cycle: its inputs depend on its own outputs");
                }
            }
        }
        return order;
    }
}
