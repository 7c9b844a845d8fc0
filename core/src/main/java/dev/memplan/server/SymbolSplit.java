// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.Shape;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.symbols.DerivedSymbol;
import dev.memplan.onnx.symbols.SymbolRelation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One symbol of a model's inputs that a request sizes apart on different dims, which ONNX Runtime
 * runs (it checks no dim_param names): the input dims that plan such a request with the symbol
 * split. The request's extents group the symbol's dims; the group of its first dim keeps the name,
 * each other group takes the name {@code <symbol>@<input>.<dim>} of its own first dim
 * ({@code batch@input_ids.1}). Only the dims the request contradicts are split: a model whose
 * graph needs them equal still refuses the request, naming the node.
 *
 * @param inputDims     the dims of each input that has a split dim, as {@link ImportOptions#inputDims}
 *                      takes them: whole numbers, {@code ?} for an unnamed dim, symbol names
 * @param contradiction what the request says, e.g. {@code symbol 'batch' is 2 at input 'ids' dim 0
 *                      but 8 at input 'ids' dim 1}
 * @param newSymbols    the symbols the split adds, in input order
 */
record SymbolSplit(Map<String, List<String>> inputDims, String contradiction, List<String> newSymbols) {

    /** Separates a split symbol's name from the input dim it is named after. */
    static final String MARK = "@";

    private record Use(String input, int dim, long extent) {
        String where() {
            return "input '" + input + "' dim " + dim;
        }
    }

    /**
     * Whether any symbol names more than one dim of {@code inputs}: only then can a request need a
     * split, so a model without one skips the search on every request.
     *
     * @param inputs the graph inputs' declared shapes
     */
    static boolean possible(Map<String, Shape> inputs) {
        Set<String> seen = new HashSet<>();
        for (Shape shape : inputs.values()) {
            for (Dim d : shape.dims()) {
                if (d instanceof Symbol s && !seen.add(s.name())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The split these request shapes need, or null when no symbol takes two sizes (or when an
     * input is unknown or of another rank: the binder's own checks report that).
     *
     * @param inputs the graph inputs' declared shapes, in graph order
     * @param fresh  the model's fresh symbols (unnamed dims, given again as {@code ?})
     * @param taken  every symbol name the model has, which a new name must not be
     * @param shapes the request's extents by input name
     */
    static SymbolSplit find(Map<String, Shape> inputs, Set<String> fresh, Set<String> taken,
                            Map<String, long[]> shapes) {
        Map<String, Map<Long, List<Use>>> bySymbol = new LinkedHashMap<>();
        for (Map.Entry<String, Shape> e : inputs.entrySet()) {
            long[] extents = shapes.get(e.getKey());
            if (extents == null) {
                continue;
            }
            if (extents.length != e.getValue().rank()) {
                return null;
            }
            for (int i = 0; i < extents.length; i++) {
                if (e.getValue().dims().get(i) instanceof Symbol s && extents[i] >= 0) {
                    bySymbol.computeIfAbsent(s.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(extents[i], k -> new ArrayList<>()).add(new Use(e.getKey(), i, extents[i]));
                }
            }
        }
        Map<String, String> renamed = new LinkedHashMap<>(); // "input\0dim" -> new name
        List<String> contradictions = new ArrayList<>();
        List<String> added = new ArrayList<>();
        for (Map.Entry<String, Map<Long, List<Use>>> e : bySymbol.entrySet()) {
            if (e.getValue().size() < 2) {
                continue;
            }
            List<List<Use>> groups = new ArrayList<>(e.getValue().values());
            Use first = groups.get(0).get(0);
            for (List<Use> group : groups.subList(1, groups.size())) {
                Use head = group.get(0);
                String name = unique(e.getKey() + MARK + head.input() + "." + head.dim(), taken, added);
                added.add(name);
                contradictions.add("symbol '" + e.getKey() + "' is " + first.extent() + " at " + first.where()
                        + " but " + head.extent() + " at " + head.where());
                for (Use u : group) {
                    renamed.put(u.input() + "\0" + u.dim(), name);
                }
            }
        }
        if (renamed.isEmpty()) {
            return null;
        }
        Map<String, List<String>> dims = new LinkedHashMap<>();
        for (Map.Entry<String, Shape> e : inputs.entrySet()) {
            List<String> out = new ArrayList<>();
            boolean split = false;
            for (int i = 0; i < e.getValue().rank(); i++) {
                String name = renamed.get(e.getKey() + "\0" + i);
                split |= name != null;
                out.add(name != null ? name : written(e.getValue().dims().get(i), fresh));
            }
            if (split) {
                if (out.contains(null)) {
                    return null; // a dim the options cannot write again: the binder refuses as before
                }
                dims.put(e.getKey(), List.copyOf(out));
            }
        }
        return new SymbolSplit(Map.copyOf(dims), String.join("; ", contradictions), List.copyOf(added));
    }

    /** A declared input dim as the options write it, or null for one they cannot (an expression). */
    private static String written(Dim d, Set<String> fresh) {
        if (d instanceof Dim.Fixed f) {
            return Long.toString(f.extent());
        }
        if (d instanceof Symbol s) {
            return fresh.contains(s.name()) ? ImportOptions.UNNAMED_DIM : s.name();
        }
        return null;
    }

    private static String unique(String base, Set<String> taken, List<String> added) {
        String name = base;
        for (int n = 2; taken.contains(name) || added.contains(name); n++) {
            name = base + "#" + n;
        }
        return name;
    }

    /**
     * Why the model compiled with this split still gives the symbol's dims one size: the relation
     * of its graph that ties a new symbol to another (an Add of a tensor and its transpose), or
     * null when the split holds.
     *
     * @param split  the model imported with {@link #inputDims}
     * @param inputs that import's input shapes
     * @param shapes the request that asked for the split
     */
    String undone(ImportedGraph split, Map<String, Shape> inputs, Map<String, long[]> shapes) {
        if (find(inputs, split.freshSymbols().keySet(), Set.of(), shapes) == null) {
            return null;
        }
        for (DerivedSymbol d : split.derivedSymbols().values()) {
            SymbolRelation r = d.relation();
            if (newSymbols.contains(d.name()) || mentionsNew(r.left()) || mentionsNew(r.right())) {
                return r.node() + " needs " + r.left() + " = " + r.right() + " (" + r.why() + ")";
            }
        }
        return "its shape inference makes them one";
    }

    /** Whether an error's message names one of the symbols this split adds. */
    boolean mentionedIn(String message) {
        return message != null && newSymbols.stream().anyMatch(message::contains);
    }

    private boolean mentionsNew(Dim d) {
        return d.symbols().stream().anyMatch(s -> newSymbols.contains(s.name()));
    }

    /** The one line that says a model is planned split, naming the symbols. */
    String notice(String model) {
        return model + ": " + contradiction + ", as ONNX Runtime allows; planned with " + String.join(", ", newSymbols)
                + " split off (to name the dims up front: ImportOptions.withInputDims, --input-dims)";
    }
}
