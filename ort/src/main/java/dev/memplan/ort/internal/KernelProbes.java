// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.MemplanException;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Measures, in ONNX Runtime itself, the workspace of each kernel {@link KernelWorkspaces} has no
 * rule for: the node alone, as ORT saved it (its attributes, its constant inputs with their data),
 * becomes a one-node model run at six probe shapes ({@link KernelProbeRun}, in a child JVM), and
 * the blocks it asked for beyond its outputs, and when it gave each back, are fitted exactly to
 * its sizes, block by block ({@link WorkspaceFit}; else the blocks as if held to the end; else
 * their peak as one block). Six probes:
 * every symbol of the graph at 8, 16 and 40 together, then three bindings where the symbols (in
 * name order) differ from one another, so a workspace that follows one dim is told from one that
 * follows another, and a fit of two terms still has probes left to check it.
 *
 * <p>A node ORT refuses at those sizes is probed again at small ones (2 to 5), once: a Loop whose
 * body slices a constant runs only as many steps as the constant has elements.
 *
 * <p>A node is left unmeasured, and named with the reason, when its sizes at the probes are
 * unknown, when ORT's outputs there differ from memplan's shapes (its inputs' values decide them:
 * the probe feeds a ramp of floats and zeros), when ORT refuses the probe, or when the workspace
 * follows none of its sizes alone (it depends on the data, or on two sizes at once).
 */
final class KernelProbes {
    /** The value every symbol takes at the first three probes. */
    private static final long[] TOGETHER = {8, 16, 40};
    /** The same at small sizes: where ORT refused a node at those (its data holds only a few steps). */
    private static final long[] SMALL_TOGETHER = {2, 3, 4};
    /**
     * A probe larger than this (its inputs, constant ones included, and outputs) is not run: the node
     * is left unmeasured. It keeps the six probe files small and the inputs within the child JVM's
     * direct memory (its heap's 128 MiB).
     */
    static final long MAX_PROBE_BYTES = 64L << 20;

    /** What runs the probe models: one result line each, in order ({@link KernelProbeRun}'s format). */
    interface Runner {
        List<String> run(List<ModelProto> probes);
    }

    /**
     * The measured rules of a graph's nodes, by the ONNX name of each node's first output (stable
     * across imports of the same saved graph), and the nodes left unmeasured, by op name, with why.
     */
    record Measured(Map<String, KernelWorkspaces.Rule> rules, Map<String, String> unmeasured, Set<String> measuredOps) {
        static final Measured NONE = new Measured(Map.of(), Map.of(), Set.of());

        /** {@return the measured rule of {@code node}, or null} */
        KernelWorkspaces.Rule rule(Graph graph, Node node) {
            String key = OnnxNodeAttributes.key(graph, node);
            return rules.isEmpty() || key == null ? null : rules.get(key);
        }
    }

    /** A node whose probes ORT refused, and ORT's reason. */
    private record Refusal(Site site, String why) {
    }

    /** One node's probes: the candidates' value ids, and per probe the shapes it expects. */
    private record NodeProbes(Graph graph, Node node, int firstProbe, List<long[]> candidateSizes, List<String> outputShapes,
                              int[] candidateValues, int[] candidateAxes) {
    }

    private KernelProbes() {
    }

    /**
     * A node whose kernel has no rule, where it is: its graph (the main graph or an If branch), the
     * ONNX node ORT saved, and the constants its graph sees (its own and its outer graphs').
     */
    private record Site(Graph graph, Node node, NodeProto proto, Map<String, TensorProto> constants) {
    }

    /** {@return the main-graph nodes of {@code imported} whose kernel has no rule, control flow aside} */
    static List<Node> withoutRule(ImportedGraph imported, NodeAttributes attributes) {
        Graph graph = imported.graph();
        Set<Integer> controlFlow = new java.util.HashSet<>(); // If branches are replayed; Loop and Scan measured whole
        imported.controlFlow().stream().filter(cf -> OrtKernels.isIf(cf.opType())).forEach(cf -> controlFlow.add(cf.nodeId()));
        List<Node> out = new ArrayList<>();
        for (Node node : graph.nodes()) {
            if (!controlFlow.contains(node.id()) && !KernelWorkspaces.isModelled(graph, node, attributes)) {
                out.add(node);
            }
        }
        return out;
    }

    /**
     * Adds the nodes without a rule of {@code imported} and, through its If nodes, of every branch ORT
     * saved (ORT runs a branch's kernels in the same arena; ONNX names are unique across a model's
     * graphs, so one map of rules serves them all). A Loop or Scan is measured as one node, its body
     * inside it, so its body is not walked.
     */
    private static void sites(ImportedGraph imported, GraphProto saved, ModelProto model,
                              Map<String, TensorProto> outer, List<Site> out) {
        Graph graph = imported.graph();
        OnnxNodeAttributes attributes = OnnxNodeAttributes.of(model.toBuilder().setGraph(saved).build(), graph);
        Map<String, TensorProto> constants = new HashMap<>(outer);
        saved.getInitializerList().forEach(t -> constants.put(t.getName(), t));
        for (Node node : withoutRule(imported, attributes)) {
            out.add(new Site(graph, node, attributes.proto(node.id()), constants));
        }
        Map<String, NodeProto> byFirstOutput = OrtSubgraphReplay.byFirstOutput(saved);
        for (ControlFlowNode cf : imported.controlFlow()) {
            Node node = graph.node(cf.nodeId());
            if (!OrtKernels.isIf(cf.opType()) || node.outputCount() == 0 || node.output(0) == Graph.ABSENT) {
                continue;
            }
            NodeProto proto = byFirstOutput.get(graph.value(node.output(0)).name());
            for (ControlFlowNode.Body body : cf.bodies()) {
                GraphProto branch = proto == null ? null : OrtSubgraphReplay.subgraph(proto, body.attribute());
                if (branch != null) {
                    sites(body.graph(), branch, model, constants, out);
                }
            }
        }
    }

    /**
     * Measures the nodes of {@code imported} (imported from {@code saved}) whose kernel has no rule,
     * If branches' nodes included.
     *
     * @return their rules, and the nodes left unmeasured with why (all of them, with the runner's
     *         message, when the runner fails as a whole: ORT crashed in the child)
     */
    static Measured measure(ImportedGraph imported, ModelProto saved, Runner runner) {
        return measure(imported, saved, runner, probeBindings(imported));
    }

    /** As {@link #measure(ImportedGraph, ModelProto, Runner)}, at the given probe bindings. */
    static Measured measure(ImportedGraph imported, ModelProto saved, Runner runner,
                            List<Map<String, Long>> bindings) {
        List<Site> sites = new ArrayList<>();
        sites(imported, saved.getGraph(), saved, Map.of(), sites);
        if (sites.isEmpty()) {
            return Measured.NONE;
        }
        Map<String, KernelWorkspaces.Rule> rules = new LinkedHashMap<>();
        Set<String> measuredOps = new TreeSet<>();
        Map<String, String> unmeasured = new TreeMap<>();
        List<Refusal> refused;
        try {
            refused = probeAndFit(sites, bindings, saved, runner, rules, measuredOps, unmeasured);
        } catch (MemplanException e) {
            sites.forEach(site -> unmeasured.putIfAbsent(KernelWorkspaces.opName(site.node()), e.getMessage()));
            return new Measured(Map.of(), Collections.unmodifiableMap(unmeasured), Set.of());
        }
        if (!refused.isEmpty()) { // it may run only at small sizes: a Loop over a constant's five elements
            List<Refusal> still;
            try {
                List<Refusal> again = probeAndFit(refused.stream().map(Refusal::site).toList(),
                        smallProbeBindings(imported), saved, runner, rules, measuredOps, unmeasured);
                still = refused.stream().filter(r -> again.stream().anyMatch(a -> a.site() == r.site())).toList();
            } catch (MemplanException e) {
                still = refused;
            }
            still.forEach(r -> unmeasured.putIfAbsent(KernelWorkspaces.opName(r.site().node()), r.why()));
        }
        return new Measured(Collections.unmodifiableMap(rules), Collections.unmodifiableMap(unmeasured),
                Collections.unmodifiableSet(measuredOps));
    }

    /**
     * Probes {@code sites} at {@code bindings} and fits what they took, into {@code rules} and
     * {@code measuredOps}; a node that cannot be measured goes into {@code unmeasured} with why.
     *
     * @return the sites whose probes ORT refused, with ORT's reason, in order; not put into {@code unmeasured}
     * @throws MemplanException when the runner fails as a whole (ORT crashed in the child)
     */
    private static List<Refusal> probeAndFit(List<Site> sites, List<Map<String, Long>> bindings, ModelProto saved,
                                                 Runner runner, Map<String, KernelWorkspaces.Rule> rules,
                                                 Set<String> measuredOps, Map<String, String> unmeasured) {
        List<ModelProto> models = new ArrayList<>();
        List<NodeProbes> probes = new ArrayList<>();
        List<Site> probed = new ArrayList<>();
        for (Site site : sites) {
            if (site.proto() == null) {
                unmeasured.put(KernelWorkspaces.opName(site.node()), "ORT's saved node was not found");
                continue;
            }
            Optional<String> why = probe(site, bindings, saved, models, probes);
            if (why.isPresent()) {
                unmeasured.putIfAbsent(KernelWorkspaces.opName(site.node()), why.get());
            } else {
                probed.add(site);
            }
        }
        List<String> results = models.isEmpty() ? List.of() : runner.run(models);
        List<Refusal> refused = new ArrayList<>();
        for (int i = 0; i < probes.size(); i++) {
            NodeProbes p = probes.get(i);
            String op = KernelWorkspaces.opName(p.node());
            List<WorkspaceFit.Probe> points = new ArrayList<>();
            List<long[]> blocks = new ArrayList<>();
            String failure = null;
            boolean refusedByOrt = false;
            for (int k = 0; k < p.outputShapes().size() && failure == null && !refusedByOrt; k++) {
                String line = results.get(p.firstProbe() + k);
                String[] parts = line.split(" ", 4);
                if (!parts[0].equals(KernelProbeRun.OK) || parts.length < 4) {
                    refused.add(new Refusal(probed.get(i), "ONNX Runtime refused the node alone: " + (parts.length > 1
                            ? line.substring(parts[0].length()).strip() : "no reason given")));
                    refusedByOrt = true;
                } else if (!parts[2].equals(p.outputShapes().get(k))) {
                    failure = "its output shapes depend on its inputs' values";
                } else {
                    points.add(new WorkspaceFit.Probe(p.candidateSizes().get(k), Long.parseLong(parts[1])));
                    blocks.add(parts[3].equals("-") ? new long[0]
                            : Arrays.stream(parts[3].split(",")).mapToLong(Long::parseLong).toArray());
                }
            }
            if (refusedByOrt) {
                continue;
            }
            if (failure == null) {
                KernelWorkspaces.Rule rule = blockRule(p, points, blocks);
                if (rule == null && blocks.stream().anyMatch(BlockEvents::givesBack)) { // each block held to the end
                    rule = blockRule(p, points, blocks.stream().map(BlockEvents::takenOnly).toList());
                }
                if (rule == null) {
                    rule = WorkspaceFit.fit(points).map(line -> totalRule(line, p)).orElse(null);
                }
                if (rule != null) {
                    rules.put(OnnxNodeAttributes.key(p.graph(), p.node()), rule);
                    measuredOps.add(op);
                    continue;
                }
                failure = "its workspace follows none of its sizes alone (measured " + points.stream()
                        .map(pt -> Long.toString(pt.workspace())).toList() + " bytes)";
            }
            unmeasured.putIfAbsent(op, failure);
        }
        return refused;
    }

    /**
     * The blocks the kernel asked for, each fitted on its own, when every probe took as many, or as
     * many more per step of a size ({@link RepeatedBlocks}): what ORT's arena rounds one by one.
     * Where the kernel gave blocks back ({@link BlockEvents}), each give-back is fitted like a size,
     * and is one at the same place in every probe. Null when their number, a size or a give-back
     * follows no fit.
     */
    private static KernelWorkspaces.Rule blockRule(NodeProbes p, List<WorkspaceFit.Probe> points,
                                                   List<long[]> blocks) {
        int count = blocks.get(0).length;
        boolean events = blocks.stream().anyMatch(BlockEvents::givesBack);
        if (blocks.stream().anyMatch(b -> b.length != count)) {
            return RepeatedBlocks.fit(points, blocks).map(layout -> repeatedRule(layout, p, events)).orElse(null);
        }
        List<Evaluator> each = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int at = i;
            Optional<RepeatedBlocks.Entry> entry = RepeatedBlocks.line(points, k -> blocks.get(k)[at]);
            if (entry.isEmpty()) {
                return null;
            }
            each.add(entry(entry.get(), p));
        }
        return shapes -> {
            long[] out = new long[each.size()];
            int n = 0;
            for (Evaluator e : each) {
                long b = e.at(shapes);
                if (events || b > 0) { // with give-backs every entry stays: they count the blocks before them
                    out[n++] = b;
                }
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        };
    }

    /**
     * The blocks of a fitted {@link RepeatedBlocks.Layout}: its head, its group once per repeat, its
     * tail; with give-backs ({@code events}), every entry kept, as a give-back counts the blocks before it.
     */
    private static KernelWorkspaces.Rule repeatedRule(RepeatedBlocks.Layout layout, NodeProbes p, boolean events) {
        Evaluator times = evaluator(RepeatedBlocks.sizeOf(layout.times()), p);
        List<Evaluator> head = layout.head().stream().map(e -> entry(e, p)).toList();
        List<Evaluator> group = layout.group().stream().map(e -> entry(e, p)).toList();
        List<Evaluator> tail = layout.tail().stream().map(e -> entry(e, p)).toList();
        return shapes -> {
            long n = Math.max(0, times.at(shapes) - layout.fewer());
            List<Long> out = new ArrayList<>();
            head.forEach(e -> out.add(e.at(shapes)));
            long[] one = group.stream().mapToLong(e -> e.at(shapes)).toArray();
            for (long r = 0; r < n; r++) {
                Arrays.stream(one).forEach(out::add);
            }
            tail.forEach(e -> out.add(e.at(shapes)));
            return out.stream().mapToLong(Long::longValue).filter(b -> events || b > 0).toArray();
        };
    }

    /** A fitted entry read at a request's sizes: a block's size, or minus a give-back's distance. */
    private static Evaluator entry(RepeatedBlocks.Entry entry, NodeProbes p) {
        Evaluator e = evaluator(entry.line(), p);
        return entry.givesBack() ? shapes -> -Math.max(1, e.at(shapes)) : e;
    }

    /** The peak beyond the outputs as one block, where the blocks one by one follow no fit. */
    private static KernelWorkspaces.Rule totalRule(WorkspaceFit.Line line, NodeProbes p) {
        Evaluator e = evaluator(line, p);
        return shapes -> {
            long w = e.at(shapes);
            return w == 0 ? new long[0] : new long[] {w};
        };
    }

    private interface Evaluator {
        long at(BoundShapes shapes);
    }

    /**
     * A fitted line read at a request's sizes: its candidates' bytes or dims. A request's shapes may
     * be of another import of the same graph (the one its bindings decide, whose If branches are
     * imported again), so the candidates are found there by name; the ids of the last graph are kept.
     */
    private static Evaluator evaluator(WorkspaceFit.Line line, NodeProbes p) {
        String[] names = new String[line.candidates().length];
        int[] axes = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = p.graph().value(p.candidateValues()[line.candidates()[i]]).name();
            axes[i] = p.candidateAxes()[line.candidates()[i]];
        }
        return new Evaluator() {
            private volatile GraphIds last = new GraphIds(p.graph(), ids(p.graph(), names));

            @Override
            public long at(BoundShapes shapes) {
                GraphIds ids = last;
                if (ids.graph() != shapes.graph()) {
                    ids = new GraphIds(shapes.graph(), ids(shapes.graph(), names));
                    last = ids;
                }
                long[] n = new long[names.length];
                for (int i = 0; i < n.length; i++) {
                    int v = ids.ids()[i];
                    n[i] = axes[i] < 0 ? shapes.bytes(v) : shapes.dim(v, axes[i]);
                }
                return line.at(n);
            }
        };
    }

    /** The value ids of a fitted line's candidates in one graph. */
    private record GraphIds(Graph graph, int[] ids) {
    }

    private static int[] ids(Graph graph, String[] names) {
        int[] out = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            out[i] = graph.valueId(name).orElseThrow(() -> new IllegalStateException("the measured value " + name
                    + " is not in the graph it is read in"));
        }
        return out;
    }

    /**
     * Bindings of the graph's symbols for each probe; a symbol a relation determines from those
     * bound before it is left to the relation.
     */
    static List<Map<String, Long>> probeBindings(ImportedGraph imported) {
        return bindings(imported, TOGETHER, j -> 12 + 8L * j, j -> 32 - 8L * (j % 3), j -> 20 + 12L * (j % 2));
    }

    /**
     * Bindings at small sizes, for nodes ORT refused at {@link #probeBindings}: every symbol at 2, 3
     * and 4 together, then three where they differ, each from 2 to 5.
     */
    static List<Map<String, Long>> smallProbeBindings(ImportedGraph imported) {
        return bindings(imported, SMALL_TOGETHER, j -> 2 + j % 4, j -> 5 - j % 3, j -> 3 + 2 * (j % 2));
    }

    /** Every symbol at each of {@code together}, then at each of {@code apart}'s values by position. */
    private static List<Map<String, Long>> bindings(ImportedGraph imported, long[] together, ValueOf... apart) {
        List<String> symbols = new ArrayList<>(new TreeMap<>(imported.symbols()).keySet());
        symbols.removeAll(imported.derivedSymbols().keySet());
        List<Map<String, Long>> out = new ArrayList<>();
        for (long v : together) {
            out.add(bind(imported, symbols, j -> v));
        }
        for (ValueOf value : apart) {
            out.add(bind(imported, symbols, value));
        }
        return out;
    }

    private interface ValueOf {
        long at(int j);
    }

    private static Map<String, Long> bind(ImportedGraph imported, List<String> symbols, ValueOf value) {
        Map<String, Long> bound = new HashMap<>();
        for (int j = 0; j < symbols.size(); j++) {
            bound.put(symbols.get(j), value.at(j));
            try {
                imported.completeBindings(bound);
            } catch (RuntimeException e) {
                bound.remove(symbols.get(j)); // determined by those before it
            }
        }
        try {
            return imported.completeBindings(bound);
        } catch (RuntimeException e) {
            return bound;
        }
    }

    /** Adds the node's probe models; {@return why it cannot be probed, if it cannot} */
    private static Optional<String> probe(Site site, List<Map<String, Long>> bindings, ModelProto saved,
                                          List<ModelProto> models, List<NodeProbes> probes) {
        Graph graph = site.graph();
        Node node = site.node();
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < node.inputCount(); i++) {
            if (node.input(i) != Graph.ABSENT) {
                values.add(node.input(i));
            }
        }
        for (int i = 0; i < node.outputCount(); i++) {
            if (node.output(i) != Graph.ABSENT) {
                values.add(node.output(i));
            }
        }
        List<Integer> candidateValues = new ArrayList<>();
        List<Integer> candidateAxes = new ArrayList<>();
        for (int v : values) { // bytes first, then each dim
            candidateValues.add(v);
            candidateAxes.add(-1);
        }
        for (int v : values) {
            for (int a = 0; a < graph.value(v).shape().rank(); a++) {
                candidateValues.add(v);
                candidateAxes.add(a);
            }
        }
        List<ModelProto> nodeModels = new ArrayList<>();
        List<long[]> sizes = new ArrayList<>();
        List<String> outputShapes = new ArrayList<>();
        for (Map<String, Long> b : bindings) {
            BoundShapes shapes = new BoundShapes(graph, b);
            long[] s = new long[candidateValues.size()];
            long total = 0;
            try {
                for (int c = 0; c < s.length; c++) {
                    int v = candidateValues.get(c);
                    s[c] = candidateAxes.get(c) < 0 ? shapes.bytes(v) : shapes.dim(v, candidateAxes.get(c));
                    if (candidateAxes.get(c) < 0) {
                        total = Math.addExact(total, s[c]);
                    }
                }
            } catch (RuntimeException e) {
                return Optional.of("its sizes are unknown at the probe shapes (" + e.getMessage() + ")");
            }
            if (total > MAX_PROBE_BYTES) {
                return Optional.of("its inputs and outputs at the probe shapes pass " + (MAX_PROBE_BYTES >> 20)
                        + " MiB");
            }
            sizes.add(s);
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < node.outputCount(); i++) {
                if (node.output(i) != Graph.ABSENT) {
                    out.append(out.length() == 0 ? "" : ";").append(KernelProbeRun.join(shapes.dims(node.output(i))));
                }
            }
            outputShapes.add(out.toString());
            nodeModels.add(model(graph, node, site.proto(), shapes, site.constants(), saved));
        }
        probes.add(new NodeProbes(graph, node, models.size(), sizes, outputShapes,
                candidateValues.stream().mapToInt(Integer::intValue).toArray(),
                candidateAxes.stream().mapToInt(Integer::intValue).toArray()));
        models.addAll(nodeModels);
        return Optional.empty();
    }

    /**
     * The node alone: its non-constant inputs as graph inputs at the probe's dims (a Loop's trip count
     * and condition as constants, {@link LoopTripFeed}), its outputs as graph outputs.
     */
    private static ModelProto model(Graph graph, Node node, NodeProto proto, BoundShapes shapes,
                                    Map<String, TensorProto> initializers, ModelProto saved) {
        GraphProto.Builder g = GraphProto.newBuilder().setName("probe").addNode(proto)
                .addAllInitializer(LoopTripFeed.of(graph, proto, shapes, initializers));
        List<String> reads = new ArrayList<>(proto.getInputList());
        for (int i = proto.getInputCount(); i < node.inputCount(); i++) { // a Loop's or Scan's body reads outer values
            if (node.input(i) != Graph.ABSENT) {
                reads.add(graph.value(node.input(i)).name());
            }
        }
        for (String name : reads) {
            if (name.isEmpty() || g.getInputList().stream().anyMatch(i -> i.getName().equals(name))
                    || g.getInitializerList().stream().anyMatch(i -> i.getName().equals(name))) {
                continue;
            }
            TensorProto constant = initializers.get(name);
            if (constant != null) {
                g.addInitializer(constant);
                continue;
            }
            int v = graph.valueId(name).orElseThrow(() -> new IllegalStateException("no value " + name));
            g.addInput(valueInfo(name, graph.value(v).dataType().onnxCode(), shapes.dims(v)));
        }
        for (int i = 0; i < node.outputCount(); i++) {
            if (node.output(i) != Graph.ABSENT) {
                Graph.Value out = graph.value(node.output(i));
                g.addOutput(ValueInfoProto.newBuilder().setName(out.name()).setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder().setElemType(out.dataType().onnxCode()))));
            }
        }
        return ModelProto.newBuilder().setIrVersion(saved.getIrVersion()).addAllOpsetImport(saved.getOpsetImportList())
                .setProducerName("memplan-probe").setGraph(g).build();
    }

    private static ValueInfoProto valueInfo(String name, int elemType, long[] dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(elemType).setShape(shape))).build();
    }
}
