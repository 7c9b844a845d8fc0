// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random graphs for file-format tests (planning cases are
 * {@link dev.memplan.testing.RandomGraphs}): every feature the file format carries (all dtypes, static
 * and symbolic dims, scalars, absent inputs, domains, named and unnamed nodes and values,
 * multi-output nodes, initializers, views and views of views, graph outputs in the middle).
 */
final class FormatGraphs {
    private static final String[] SYMBOLS = {"batch", "seq", "heads"};
    private static final String[] OPS = {"MatMul", "Add", "Relu", "Reshape", "Split", "Concat", "LayerNormalization"};

    record Generated(Graph graph, ViewMap views) {
    }

    private FormatGraphs() {
    }

    static Generated generate(long seed) {
        Random r = new Random(seed);
        Graph.Builder b = Graph.builder();
        DataType[] types = DataType.values();
        List<Integer> available = new ArrayList<>();
        List<Integer> produced = new ArrayList<>();
        int[] counter = {0};

        int numInputs = 1 + r.nextInt(3);
        for (int i = 0; i < numInputs; i++) {
            int v = value(b, r, types, counter);
            b.input(v);
            available.add(v);
        }
        int numInits = r.nextInt(4);
        for (int i = 0; i < numInits; i++) {
            int v = value(b, r, types, counter);
            b.initializer(v);
            available.add(v);
        }
        ViewMap.Builder views = ViewMap.builder();
        int numNodes = r.nextInt(25);
        for (int n = 0; n < numNodes; n++) {
            int numIn = 1 + r.nextInt(3);
            int[] ins = new int[numIn];
            for (int i = 0; i < numIn; i++) {
                ins[i] = r.nextInt(10) == 0 ? Graph.ABSENT : available.get(r.nextInt(available.size()));
            }
            int numOut = 1 + (r.nextInt(4) == 0 ? r.nextInt(3) : 0);
            int[] outs = new int[numOut];
            for (int i = 0; i < numOut; i++) {
                outs[i] = value(b, r, types, counter);
            }
            String name = r.nextInt(5) == 0 ? "" : "node" + n;
            String domain = r.nextInt(6) == 0 ? "com.example" : "";
            b.node(name, domain, OPS[r.nextInt(OPS.length)], ins, outs);
            for (int out : outs) {
                // A view's source is an input of its producer that is not a weight.
                if (r.nextInt(4) == 0 && ins[0] != Graph.ABSENT && produced.contains(ins[0])) {
                    views.put(out, ins[0]);
                }
                available.add(out);
                produced.add(out);
            }
        }
        if (!produced.isEmpty()) {
            b.output(produced.get(produced.size() - 1));
            if (produced.size() > 2 && r.nextBoolean()) {
                b.output(produced.get(r.nextInt(produced.size() - 1))); // an output in the middle
            }
        }
        return new Generated(b.build(), views.build());
    }

    private static int value(Graph.Builder b, Random r, DataType[] types, int[] counter) {
        DataType type = r.nextInt(3) == 0 ? types[r.nextInt(types.length)] : DataType.FLOAT32;
        int rank = r.nextInt(4);
        List<Dim> dims = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            dims.add(r.nextInt(4) == 0 ? Dim.symbol(SYMBOLS[r.nextInt(SYMBOLS.length)]) : Dim.of(r.nextInt(65)));
        }
        int id = counter[0]++;
        // Some values are unnamed: the writer names them %id.
        return b.value(r.nextInt(8) == 0 ? "" : "t" + id, type, new Shape(dims));
    }
}
