package dev.memplan.onnx;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.InvalidGraphException;
import dev.memplan.Shape;
import dev.memplan.Symbol;
import dev.memplan.TensorSizes;
import dev.memplan.Value;
import dev.memplan.ViewMap;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.SparseTensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Imports one ONNX GraphProto (the main graph or a body) into a {@link Graph}: resolves names,
 * orders nodes, infers shapes, folds constants, proposes views and imports bodies. Sub-graphs
 * recurse once per nesting level, which protobuf's own nesting limit bounds.
 */
final class GraphImporter {
    /** Ops never folded: their outputs differ run to run. */
    private static final Set<String> NONDETERMINISTIC = Set.of(
            "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli");

    private final GraphProto proto;
    final String where;
    final ImportOptions options;
    final long opset;
    final SymbolTable symbols;
    /** Values visible from enclosing graphs (for bodies); empty for the main graph. */
    final Map<String, TensorInfo> outer;
    /** Body inputs whose declaration lacks a shape: what the control-flow node passes in. */
    private final List<TensorInfo> inputHints;
    final Set<String> inputSymbolNames;

    final Map<String, TensorInfo> infos = new HashMap<>();
    final Set<String> weights = new HashSet<>();
    private final Set<String> folded = new LinkedHashSet<>();
    private final Map<String, Shape> declared = new HashMap<>();
    private final Map<String, List<Dim>> declaredDims = new HashMap<>();
    private final Map<String, Dim> aliases = new HashMap<>();
    private final List<ShapeDisagreement> disagreements = new ArrayList<>();
    private final List<String> uninferred = new ArrayList<>();
    private final Set<String> outerRefs = new LinkedHashSet<>();

    GraphImporter(GraphProto proto, String where, ImportOptions options, long opset, SymbolTable symbols,
                  Map<String, TensorInfo> outer, List<TensorInfo> inputHints, Set<String> inputSymbolNames) {
        this.proto = proto;
        this.where = where;
        this.options = options;
        this.opset = opset;
        this.symbols = symbols;
        this.outer = outer;
        this.inputHints = inputHints;
        this.inputSymbolNames = inputSymbolNames;
    }

    /** Names a body reads from enclosing graphs (known after {@link #run()}). */
    Set<String> outerRefs() {
        return outerRefs;
    }

    ImportedGraph run() {
        // 1. weights
        for (int i = 0; i < proto.getInitializerCount(); i++) {
            TensorProto t = proto.getInitializer(i);
            String name = t.getName();
            String at = where + " initializer " + i + " '" + name + "'";
            if (name.isEmpty()) {
                throw new OnnxFormatException(at + " has no name; every initializer needs one");
            }
            if (infos.put(name, TensorDecoder.decode(t, at)) != null) {
                throw new OnnxFormatException(at + " is declared twice; initializer names must be unique");
            }
            weights.add(name);
        }
        for (int i = 0; i < proto.getSparseInitializerCount(); i++) {
            SparseTensorProto s = proto.getSparseInitializer(i);
            String name = s.getValues().getName();
            String at = where + " sparse initializer " + i + " '" + name + "'";
            DataType type = TensorDecoder.dataType(s.getValues().getDataType(), at);
            List<Dim> dims = new ArrayList<>();
            for (long d : s.getDimsList()) {
                if (d < 0) {
                    throw new OnnxFormatException(at + " has a negative dim " + d);
                }
                dims.add(Dim.of(d));
            }
            infos.put(name, TensorInfo.of(type, dims));
            weights.add(name);
        }
        // 2. declared shapes
        for (ValueInfoProto vi : proto.getValueInfoList()) {
            declare(vi, "value_info");
        }
        for (ValueInfoProto vi : proto.getOutputList()) {
            declare(vi, "graph output");
        }
        List<String> inputNames = new ArrayList<>();
        for (int i = 0; i < proto.getInputCount(); i++) {
            ValueInfoProto vi = proto.getInput(i);
            String name = vi.getName();
            if (name.isEmpty()) {
                throw new OnnxFormatException(where + " input " + i + " has no name; every graph input needs one");
            }
            if (weights.contains(name)) {
                continue; // an initializer listed as an input (IR < 4): a weight with a default value
            }
            if (infos.containsKey(name)) {
                throw new OnnxFormatException(where + " declares input '" + name + "' twice");
            }
            inputNames.add(name);
            TensorInfo hint = i < inputHints.size() ? inputHints.get(i) : null;
            TensorInfo info = inputInfo(vi, hint);
            infos.put(name, info);
            if (inputSymbolNames != null && info.shape != null) {
                for (Dim d : info.shape) {
                    d.symbols().forEach(s -> inputSymbolNames.add(s.name()));
                }
            }
        }
        // 3. producers, dangling names, order
        List<NodeProto> nodes = proto.getNodeList();
        int[] order = order(nodes);
        // 4. inference and folding, in dependency order
        List<ControlFlowNode> pendingControlFlow = new ArrayList<>();
        Map<Integer, ControlFlowImporter.ControlFlowDraft> drafts = new HashMap<>();
        boolean[] dropped = new boolean[nodes.size()];
        for (int n : order) {
            NodeProto node = nodes.get(n);
            String nodeDesc = describe(node, n);
            if (isDefaultDomain(node) && node.getOpType().equals("Constant")) {
                importConstant(node, nodeDesc);
                dropped[n] = true;
                continue;
            }
            if (isControlFlow(node)) {
                drafts.put(n, new ControlFlowImporter(this).importNode(node, nodeDesc));
                continue;
            }
            List<TensorInfo> outs = inferNode(node, nodeDesc);
            boolean fold = options.foldConstants() && foldable(node, outs);
            for (int i = 0; i < node.getOutputCount(); i++) {
                String out = node.getOutput(i);
                if (out.isEmpty()) {
                    continue;
                }
                TensorInfo info = settle(out, i < outs.size() ? outs.get(i) : null, nodeDesc);
                infos.put(out, info);
                if (fold) {
                    weights.add(out);
                    folded.add(out);
                }
            }
            dropped[n] = fold;
        }
        return build(nodes, order, dropped, drafts, inputNames, pendingControlFlow);
    }

    // ---- declarations -------------------------------------------------------------------------

    private void declare(ValueInfoProto vi, String role) {
        if (vi.getName().isEmpty() || !vi.hasType() || !vi.getType().hasTensorType()
                || !vi.getType().getTensorType().hasShape()) {
            return;
        }
        TensorShapeProto sp = vi.getType().getTensorType().getShape();
        List<Dim> dims = new ArrayList<>();
        for (int i = 0; i < sp.getDimCount(); i++) {
            TensorShapeProto.Dimension d = sp.getDim(i);
            if (d.hasDimValue()) {
                if (d.getDimValue() < 0) {
                    dims.add(null);
                } else {
                    dims.add(Dim.of(d.getDimValue()));
                }
            } else if (d.hasDimParam() && !d.getDimParam().isEmpty()) {
                dims.add(symbols.named(d.getDimParam()));
            } else {
                dims.add(null); // unnamed: inference or a fresh symbol fills it
            }
        }
        declaredDims.putIfAbsent(vi.getName(), dims);
    }

    private TensorInfo inputInfo(ValueInfoProto vi, TensorInfo hint) {
        String name = vi.getName();
        TypeProto type = vi.getType();
        DataType dt = hint != null ? hint.type : DataType.UNDEFINED;
        if (type.hasTensorType() && type.getTensorType().hasElemType()) {
            dt = TensorDecoder.dataType(type.getTensorType().getElemType(), where + " input '" + name + "'");
        }
        List<Dim> dims = null;
        if (type.hasTensorType() && type.getTensorType().hasShape()) {
            TensorShapeProto sp = type.getTensorType().getShape();
            dims = new ArrayList<>();
            for (int i = 0; i < sp.getDimCount(); i++) {
                TensorShapeProto.Dimension d = sp.getDim(i);
                if (d.hasDimValue() && d.getDimValue() >= 0) {
                    dims.add(Dim.of(d.getDimValue()));
                } else if (d.hasDimParam() && !d.getDimParam().isEmpty()) {
                    dims.add(symbols.named(d.getDimParam()));
                } else if (hint != null && hint.rank() == sp.getDimCount()) {
                    dims.add(hint.shape.get(i));
                } else {
                    dims.add(symbols.fresh(name + "_d" + i, "unnamed dim " + i + " of input '" + name + "'"));
                }
            }
            declared.put(name, new Shape(dims));
        } else if (hint != null && hint.shape != null) {
            dims = hint.shape;
        } else {
            uninferred.add(name);
            dims = List.of(symbols.fresh(name + "_numel", "input '" + name + "' declares no shape"));
        }
        return new TensorInfo(dt, dims, hint == null ? null : hint.ints, hint == null ? null : hint.floats);
    }

    /** Merges inference with the declared shape of {@code name}; records disagreements. */
    TensorInfo settle(String name, TensorInfo inferred, String nodeDesc) {
        List<Dim> decl = declaredDims.get(name);
        DataType type = inferred != null ? inferred.type : DataType.UNDEFINED;
        if (type == DataType.UNDEFINED) {
            type = declaredType(name);
        }
        List<Dim> inf = inferred == null ? null : inferred.shape;
        List<Dim> shape;
        if (decl == null) {
            if (inf == null) {
                uninferred.add(name);
                shape = List.of(symbols.fresh(name + "_numel",
                        "shape of '" + name + "' (output of " + nodeDesc + ") is not inferred"));
            } else {
                shape = inf;
            }
        } else if (inf == null || inf.size() != decl.size()) {
            if (inf != null) {
                disagreements.add(new ShapeDisagreement(name, declaredShapeOf(decl), new Shape(inf),
                        "rank " + decl.size() + " declared, " + inf.size() + " inferred"));
            }
            shape = new ArrayList<>();
            for (int i = 0; i < decl.size(); i++) {
                Dim d = decl.get(i);
                shape.add(d != null ? resolveAlias(d) : symbols.fresh(name + "_d" + i,
                        "unnamed dim " + i + " of '" + name + "'"));
            }
        } else {
            shape = new ArrayList<>();
            List<String> diffs = new ArrayList<>();
            for (int i = 0; i < decl.size(); i++) {
                Dim d = decl.get(i);
                Dim e = inf.get(i);
                if (d == null) {
                    shape.add(e);
                } else if (d.equals(e)) {
                    shape.add(d);
                } else if (d instanceof Symbol s && !inputSymbolNames.contains(s.name())) {
                    // a symbol the exporter invented for an intermediate (unk__N): inference says what it is
                    Dim prior = aliases.putIfAbsent(s.name(), e);
                    if (prior != null && !prior.equals(e)) {
                        diffs.add("dim " + i + ": '" + s.name() + "' was " + prior + " elsewhere, here " + e);
                    }
                    shape.add(e);
                } else {
                    diffs.add("dim " + i + ": " + d + " declared, " + e + " inferred");
                    shape.add(d);
                }
            }
            if (!diffs.isEmpty()) {
                disagreements.add(new ShapeDisagreement(name, declaredShapeOf(decl), new Shape(inf),
                        String.join("; ", diffs)));
            }
        }
        if (decl != null) {
            declared.put(name, declaredShapeOf(decl));
        }
        if (type == DataType.UNDEFINED && !uninferred.contains(name)) {
            uninferred.add(name);
        }
        boolean sameShape = inferred != null && shape.equals(inf);
        return new TensorInfo(type, shape, sameShape ? inferred.ints : null, sameShape ? inferred.floats : null);
    }

    private Dim resolveAlias(Dim d) {
        if (d instanceof Symbol s) {
            Dim a = aliases.get(s.name());
            return a == null ? d : a;
        }
        return d;
    }

    private Shape declaredShapeOf(List<Dim> decl) {
        List<Dim> out = new ArrayList<>();
        for (Dim d : decl) {
            out.add(d == null ? new Symbol("?") : d);
        }
        return new Shape(out);
    }

    private DataType declaredType(String name) {
        for (ValueInfoProto vi : proto.getValueInfoList()) {
            if (vi.getName().equals(name) && vi.getType().hasTensorType()) {
                return TensorDecoder.dataType(vi.getType().getTensorType().getElemType(), "value_info '" + name + "'");
            }
        }
        for (ValueInfoProto vi : proto.getOutputList()) {
            if (vi.getName().equals(name) && vi.getType().hasTensorType()) {
                return TensorDecoder.dataType(vi.getType().getTensorType().getElemType(), "graph output '" + name + "'");
            }
        }
        return DataType.UNDEFINED;
    }

    // ---- structure ----------------------------------------------------------------------------

    static String describe(NodeProto node, int index) {
        String op = node.getDomain().isEmpty() ? node.getOpType() : node.getDomain() + ":" + node.getOpType();
        return node.getName().isEmpty() ? "node " + index + " (" + op + ")"
                : "node " + index + " '" + node.getName() + "' (" + op + ")";
    }

    private static boolean isDefaultDomain(NodeProto node) {
        return node.getDomain().isEmpty() || node.getDomain().equals("ai.onnx");
    }

    private static boolean isControlFlow(NodeProto node) {
        if (!isDefaultDomain(node)) {
            return false;
        }
        String op = node.getOpType();
        return op.equals("If") || op.equals("Loop") || op.equals("Scan");
    }

    /** Whether a name is available before any node runs: input, weight or outer value. */
    private boolean available(String name) {
        return infos.containsKey(name) || outer.containsKey(name);
    }

    /** Names a node reads: its inputs plus the outer names its bodies read. */
    private static Set<String> reads(NodeProto node) {
        Set<String> out = new LinkedHashSet<>();
        for (String in : node.getInputList()) {
            if (!in.isEmpty()) {
                out.add(in);
            }
        }
        out.addAll(freeNames(node));
        return out;
    }

    /**
     * The names a node's bodies read that they do not define: outer values. Walks nested bodies
     * breadth-first with an explicit queue, in attribute order.
     */
    static Set<String> freeNames(NodeProto node) {
        Set<String> free = new LinkedHashSet<>();
        ArrayDeque<Object[]> stack = new ArrayDeque<>();
        for (var g : Attrs.subgraphs(node)) {
            stack.addLast(new Object[]{g.getValue(), Set.<String>of()});
        }
        while (!stack.isEmpty()) {
            Object[] top = stack.pollFirst();
            GraphProto g = (GraphProto) top[0];
            @SuppressWarnings("unchecked")
            Set<String> enclosingDefined = (Set<String>) top[1];
            Set<String> defined = new HashSet<>(enclosingDefined);
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
                    stack.addLast(new Object[]{sub.getValue(), defined});
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

    /** Checks producers and references; returns the nodes in dependency order. */
    private int[] order(List<NodeProto> nodes) {
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
                            + describe(nodes.get(prev), prev) + " and by " + describe(node, n)
                            + "; every ONNX value has one producer");
                }
                if (infos.containsKey(out)) {
                    throw new OnnxFormatException(where + ": value '" + out + "' is produced by " + describe(node, n)
                            + " but is also a graph input or initializer; rename one of them");
                }
            }
        }
        int[] pending = new int[nodes.size()];
        Map<String, List<Integer>> consumers = new HashMap<>();
        for (int n = 0; n < nodes.size(); n++) {
            NodeProto node = nodes.get(n);
            for (String in : reads(node)) {
                if (producer.containsKey(in)) {
                    if (producer.get(in) == n) {
                        throw new OnnxFormatException(where + ": " + describe(node, n) + " reads its own output '"
                                + in + "'; the graph has a cycle");
                    }
                    pending[n]++;
                    consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                } else if (!available(in)) {
                    boolean direct = node.getInputList().contains(in);
                    throw new OnnxFormatException(where + ": " + describe(node, n)
                            + (direct ? " reads '" : " has a body that reads '") + in
                            + "', which no node produces and which is neither a graph input nor an initializer;"
                            + " the model is incomplete or corrupted");
                }
                if (outer.containsKey(in) && !infos.containsKey(in) && !producer.containsKey(in)) {
                    outerRefs.add(in);
                }
            }
        }
        for (ValueInfoProto out : proto.getOutputList()) {
            String name = out.getName();
            if (!producer.containsKey(name) && !available(name)) {
                throw new OnnxFormatException(where + ": graph output '" + name
                        + "' is produced by no node and is neither a graph input nor an initializer");
            }
            if (outer.containsKey(name) && !infos.containsKey(name) && !producer.containsKey(name)) {
                outerRefs.add(name);
            }
        }
        // Kahn, smallest index first, so a topologically sorted file keeps its order
        java.util.PriorityQueue<Integer> ready = new java.util.PriorityQueue<>();
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
                    throw new OnnxFormatException(where + ": " + describe(nodes.get(n), n)
                            + " is on a cycle: its inputs depend on its own outputs");
                }
            }
        }
        return order;
    }

    TensorInfo lookup(String name) {
        if (name.isEmpty()) {
            return null;
        }
        TensorInfo t = infos.get(name);
        return t != null ? t : outer.get(name);
    }

    private boolean isWeight(String name) {
        return weights.contains(name) || (!infos.containsKey(name) && outer.containsKey(name)
                && outerWeights.contains(name));
    }

    /** Outer values that are weights (set by the parent for bodies). */
    Set<String> outerWeights = Set.of();

    // ---- nodes --------------------------------------------------------------------------------

    private void importConstant(NodeProto node, String nodeDesc) {
        Attrs a = new Attrs(node);
        TensorInfo t;
        if (a.getTensor("value") != null) {
            t = TensorDecoder.decode(a.getTensor("value"), nodeDesc + " value");
        } else if (a.has("value_int")) {
            t = new TensorInfo(DataType.INT64, List.of(), new SymInt[]{SymInt.of(a.getInt("value_int", 0))}, null);
        } else if (a.has("value_ints")) {
            long[] v = a.getInts("value_ints");
            SymInt[] s = new SymInt[Math.min(v.length, TensorInfo.MAX_TRACKED_ELEMENTS + 1)];
            for (int i = 0; i < s.length; i++) {
                s[i] = SymInt.of(v[i]);
            }
            t = new TensorInfo(DataType.INT64, List.of(Dim.of(v.length)), s.length == v.length ? s : null, null);
        } else if (a.has("value_float")) {
            t = new TensorInfo(DataType.FLOAT32, List.of(), null, new double[]{a.getFloat("value_float", 0)});
        } else if (a.has("value_floats")) {
            float[] v = a.getFloats("value_floats");
            double[] d = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = v[i];
            }
            t = new TensorInfo(DataType.FLOAT32, List.of(Dim.of(v.length)), null, d);
        } else if (a.get("sparse_value") != null) {
            var sp = a.get("sparse_value").getSparseTensor();
            List<Dim> dims = new ArrayList<>();
            for (long d : sp.getDimsList()) {
                dims.add(Dim.of(Math.max(0, d)));
            }
            t = TensorInfo.of(TensorDecoder.dataType(sp.getValues().getDataType(), nodeDesc), dims);
        } else {
            t = TensorInfo.of(DataType.STRING, List.of(symbols.fresh("constant_strings", nodeDesc)));
        }
        for (String out : node.getOutputList()) {
            if (!out.isEmpty()) {
                infos.put(out, t);
                weights.add(out);
            }
        }
    }

    private List<TensorInfo> inferNode(NodeProto node, String nodeDesc) {
        Attrs attrs = new Attrs(node);
        String firstOut = node.getOutputCount() > 0 ? node.getOutput(0) : nodeDesc;
        InferenceContext ctx = new InferenceContext() {
            @Override
            public int inputCount() {
                return node.getInputCount();
            }

            @Override
            public TensorInfo input(int i) {
                return i < node.getInputCount() ? lookup(node.getInput(i)) : null;
            }

            @Override
            public Attrs attrs() {
                return attrs;
            }

            @Override
            public String opType() {
                return node.getOpType();
            }

            @Override
            public String domain() {
                return node.getDomain();
            }

            @Override
            public int outputCount() {
                return node.getOutputCount();
            }

            @Override
            public long opset() {
                return opset;
            }

            @Override
            public Dim fresh(String hint) {
                return symbols.fresh(firstOut + "_" + hint, "data-dependent " + hint + " of " + nodeDesc);
            }

            @Override
            public void relate(Dim a, Dim b, String why, boolean broadcast) {
                symbols.relations().record(a, b, nodeDesc, why, broadcast);
            }
        };
        List<TensorInfo> outs;
        try {
            outs = OpInference.infer(ctx);
        } catch (RuntimeException e) {
            // absurd attributes or inputs (a corrupted file): leave the outputs uninferred
            return List.of();
        }
        if (outs.size() == 1) {
            outs = List.of(withValues(ctx, outs.get(0)));
        }
        List<TensorInfo> bounded = new ArrayList<>(outs.size());
        for (TensorInfo t : outs) {
            bounded.add(t == null || t.shape == null || !tooComplex(t.shape) ? t : null);
        }
        return bounded;
    }

    /** {@code inferred} with its values when the node's inputs are known constants. */
    private static TensorInfo withValues(InferenceContext ctx, TensorInfo inferred) {
        try {
            TensorInfo folded = ConstantFolder.fold(ctx, inferred);
            return folded == null ? inferred : folded;
        } catch (RuntimeException e) {
            // an overflow or absurd constant: keep what inference said
            return inferred;
        }
    }

    /** Dim expressions larger than this fall back to a fresh symbol: keeps every step cheap. */
    private static final int MAX_DIM_TERMS = 64;

    /** Whether any dim's expression tree has more than {@link #MAX_DIM_TERMS} nodes (early exit). */
    static boolean tooComplex(List<Dim> shape) {
        ArrayDeque<Dim> stack = new ArrayDeque<>(shape);
        int seen = 0;
        while (!stack.isEmpty()) {
            Dim d = stack.pop();
            if (++seen > MAX_DIM_TERMS * Math.max(1, shape.size())) {
                return true;
            }
            if (d instanceof dev.memplan.DerivedDim dd) {
                dd.operands().forEach(stack::push);
            }
        }
        return false;
    }

    private boolean foldable(NodeProto node, List<TensorInfo> outs) {
        if (!isDefaultDomain(node) || NONDETERMINISTIC.contains(node.getOpType())
                || !Attrs.subgraphs(node).isEmpty() || node.getOutputCount() == 0) {
            return false;
        }
        String op = node.getOpType();
        if (op.equals("Shape") || op.equals("Size")) {
            // the output is known from the input's shape alone
            return !outs.isEmpty() && outs.get(0) != null && outs.get(0).ints != null
                    && outs.get(0).constInts() != null;
        }
        boolean any = false;
        for (String in : node.getInputList()) {
            if (in.isEmpty()) {
                continue;
            }
            if (!isWeight(in)) {
                return false;
            }
            any = true;
        }
        if (!any) {
            return false;
        }
        for (TensorInfo t : outs) {
            if (t != null && !t.isStaticShape()) {
                return false;
            }
        }
        return true;
    }

    // ---- building the graph -------------------------------------------------------------------

    private ImportedGraph build(List<NodeProto> nodes, int[] order, boolean[] dropped,
                                Map<Integer, ControlFlowImporter.ControlFlowDraft> drafts, List<String> inputNames,
                                List<ControlFlowNode> unused) {
        Graph.Builder b = Graph.builder();
        // derived symbols are written out in every shape, so the graph plans with the free
        // symbols alone whoever plans it (OnnxPlanner still checks bindings of derived ones)
        relations = symbols.resolveRelations();
        derivedExprs = new HashMap<>();
        relations.derived().forEach((name, d) -> derivedExprs.put(name, d.expression()));
        Map<String, Integer> ids = new HashMap<>();
        // graph inputs first, then outer values the body reads (owned by the enclosing plan)
        List<Integer> inputs = new ArrayList<>();
        for (String name : inputNames) {
            inputs.add(valueId(b, ids, name));
        }
        for (String name : outerRefs) {
            if (!ids.containsKey(name) && !outerWeights.contains(name)) {
                inputs.add(valueId(b, ids, name));
            }
        }
        List<Integer> inits = new ArrayList<>();
        long weightBytes = 0;
        long foldedBytes = 0;
        Set<String> usedWeights = new LinkedHashSet<>();
        List<int[]> nodeIo = new ArrayList<>();
        List<ControlFlowNode> controlFlow = new ArrayList<>();
        // nodes in file order among those kept: the planner orders by id, so keep a valid order
        List<Integer> kept = new ArrayList<>();
        for (int n : order) {
            if (!dropped[n]) {
                kept.add(n);
            }
        }
        for (int n : kept) {
            NodeProto node = nodes.get(n);
            for (String in : reads(node)) {
                if (isWeight(in)) {
                    usedWeights.add(in);
                }
            }
        }
        for (ValueInfoProto out : proto.getOutputList()) {
            if (isWeight(out.getName())) {
                usedWeights.add(out.getName());
            }
        }
        // every weight of this graph is in the import, read or not, so each ONNX value has a Value
        usedWeights.addAll(weights);
        for (String w : usedWeights) {
            inits.add(valueId(b, ids, w));
        }
        // count every weight of this graph (used or not) once; a size that overflows fails the
        // import (InvalidSizeException naming the weight): a total never silently drops a tensor
        for (String w : weights) {
            OptionalLong bytes = staticBytes(w);
            if (bytes.isPresent()) {
                weightBytes = WeightTotals.add(weightBytes, bytes.getAsLong(), where);
                if (folded.contains(w)) {
                    foldedBytes = WeightTotals.add(foldedBytes, bytes.getAsLong(), where);
                }
            }
        }
        ViewMap.Builder views = ViewMap.builder();
        for (int n : kept) {
            NodeProto node = nodes.get(n);
            List<Integer> ins = new ArrayList<>();
            for (String in : node.getInputList()) {
                ins.add(in.isEmpty() ? Graph.ABSENT : valueId(b, ids, in));
            }
            ControlFlowImporter.ControlFlowDraft draft = drafts.get(n);
            if (draft != null) {
                for (String extra : draft.implicitInputs()) {
                    ins.add(valueId(b, ids, extra));
                }
            }
            List<Integer> outs = new ArrayList<>();
            for (String out : node.getOutputList()) {
                if (!out.isEmpty()) {
                    outs.add(valueId(b, ids, out));
                }
            }
            int id = b.node(node.getName(), node.getDomain(), node.getOpType(),
                    ins.stream().mapToInt(Integer::intValue).toArray(),
                    outs.stream().mapToInt(Integer::intValue).toArray());
            if (draft != null) {
                controlFlow.add(new ControlFlowNode(id, node.getName().isEmpty() ? node.getOpType() + "#" + id
                        : node.getName(), node.getOpType(), draft.implicitInputs(), draft.bodies()));
            }
            if (options.viewPolicy().isView(node.getDomain(), node.getOpType()) && !outs.isEmpty()
                    && !ins.isEmpty() && ins.get(0) != Graph.ABSENT && !ins.get(0).equals(outs.get(0))) {
                views.put(outs.get(0), ins.get(0));
            }
        }
        List<Integer> outputs = new ArrayList<>();
        for (ValueInfoProto out : proto.getOutputList()) {
            outputs.add(valueId(b, ids, out.getName()));
        }
        b.input(inputs.stream().mapToInt(Integer::intValue).toArray());
        b.initializer(inits.stream().mapToInt(Integer::intValue).toArray());
        b.output(outputs.stream().mapToInt(Integer::intValue).toArray());
        Graph graph;
        try {
            graph = b.build();
        } catch (InvalidGraphException e) {
            throw new OnnxFormatException(where + ": " + e.getMessage(), e);
        }
        // a declared dim that a relation makes equal to the inferred one is no disagreement
        List<ShapeDisagreement> unexplained = disagreements.stream()
                .filter(d -> !relations.sameShape(d.declared(), d.inferred())).toList();
        return new ImportedGraph(proto.getName(), graph, views.build(), weightBytes, foldedBytes, folded.size(),
                declared, unexplained, controlFlow, symbols.freshOrigins(), uninferred, relations);
    }

    /** The relations resolved when the graph is built, and the derived symbols' expressions. */
    private SymbolRelations relations = SymbolRelations.NONE;
    private Map<String, Dim> derivedExprs = Map.of();

    private int valueId(Graph.Builder b, Map<String, Integer> ids, String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        TensorInfo t = lookup(name);
        if (t == null) {
            throw new OnnxFormatException(where + ": value '" + name + "' is referenced but never defined");
        }
        List<Dim> shape = t.shape != null ? t.shape : List.of(symbols.fresh(name + "_numel", "unknown shape"));
        if (!derivedExprs.isEmpty()) {
            shape = shape.stream().map(d -> DimSubstitution.apply(d, derivedExprs)).toList();
        }
        int v = b.value(name, t.type, new Shape(shape));
        ids.put(name, v);
        return v;
    }

    /**
     * The bytes of a static-shaped weight, empty for a symbolic shape or a type without a fixed
     * width (strings).
     *
     * @throws dev.memplan.InvalidSizeException naming the weight when its size overflows a long
     */
    private OptionalLong staticBytes(String name) {
        TensorInfo t = infos.get(name);
        if (t == null || !t.isStaticShape()) {
            return OptionalLong.empty();
        }
        return TensorSizes.bytes(new Value(0, name, t.type, new Shape(t.shape), -1), Map.of());
    }

    static Map<String, TensorInfo> noOuter() {
        return new LinkedHashMap<>();
    }
}
