// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Shape;
import dev.memplan.Dim.Symbol;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.onnx.read.TensorDecoder;
import dev.memplan.onnx.symbols.SymbolTable;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The import step that merges what a file declares (graph inputs, value_info, graph outputs)
 * with what inference finds: a declared dim wins over an inferred one, an unnamed declared dim
 * takes the inferred one, an exporter's placeholder symbol ({@code unk__N}) is aliased to what
 * inference says it is, and every real difference is recorded as a {@link ShapeDisagreement}.
 * Values neither declared nor inferred get a fresh symbol and are listed as uninferred.
 */
final class DeclaredShapes {
    private final GraphProto graph;
    private final String where;
    private final ImportSession session;
    private final Map<String, Shape> declared = new HashMap<>();
    private final Map<String, List<Dim>> declaredDims = new HashMap<>();
    private final Map<String, Dim> aliases = new HashMap<>();
    private final List<ShapeDisagreement> disagreements = new ArrayList<>();
    private final List<String> uninferred = new ArrayList<>();

    /** Reads the value_info and graph output declarations of {@code graph}. */
    DeclaredShapes(GraphProto graph, String where, ImportSession session) {
        this.graph = graph;
        this.where = where;
        this.session = session;
        for (ValueInfoProto vi : graph.getValueInfoList()) {
            declare(vi);
        }
        for (ValueInfoProto vi : graph.getOutputList()) {
            declare(vi);
        }
    }

    private void declare(ValueInfoProto vi) {
        if (vi.getName().isEmpty() || !vi.hasType() || !vi.getType().hasTensorType()
                || !vi.getType().getTensorType().hasShape()) {
            return;
        }
        TensorShapeProto sp = vi.getType().getTensorType().getShape();
        List<Dim> dims = new ArrayList<>();
        for (int i = 0; i < sp.getDimCount(); i++) {
            TensorShapeProto.Dimension d = sp.getDim(i);
            if (d.hasDimValue()) {
                dims.add(d.getDimValue() < 0 ? null : Dim.of(d.getDimValue()));
            } else if (d.hasDimParam() && !d.getDimParam().isEmpty()
                    && !session.inputDims().replaces(d.getDimParam())) {
                dims.add(session.symbols().named(d.getDimParam()));
            } else {
                dims.add(null); // unnamed, or named after the exporter's mistake: inference or a fresh symbol fills it
            }
        }
        declaredDims.putIfAbsent(vi.getName(), dims);
    }

    /**
     * What a graph input is: its declaration (or the dims given in its place, {@code given}, may be
     * null), completed by what the enclosing node passes in ({@code hint}, may be null) for a body
     * input, or fresh symbols for unnamed dims.
     */
    TensorInfo input(ValueInfoProto vi, TensorInfo hint, List<String> given) {
        String name = vi.getName();
        TypeProto type = vi.getType();
        SymbolTable symbols = session.symbols();
        DataType dt = hint != null ? hint.type : DataType.UNDEFINED;
        if (type.hasTensorType() && type.getTensorType().hasElemType()) {
            dt = TensorDecoder.dataType(type.getTensorType().getElemType(), where + " input '" + name + "'");
        }
        List<Dim> dims;
        if (given != null) {
            dims = new ArrayList<>();
            for (int i = 0; i < given.size(); i++) {
                String d = given.get(i);
                dims.add(ImportOptions.isExtent(d) ? Dim.of(Long.parseLong(d))
                        : !d.equals(ImportOptions.UNNAMED_DIM) ? symbols.named(d)
                        : symbols.fresh(name + "_d" + i, "unnamed dim " + i + " of input '" + name + "'"));
            }
            declared.put(name, new Shape(dims));
        } else if (type.hasTensorType() && type.getTensorType().hasShape()) {
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
        return new TensorInfo(dt, dims, hint == null ? null : hint.ints, hint == null ? null : hint.floats,
                hint == null ? null : hint.condition);
    }

    /**
     * Merges inference with the declared shape of node output {@code name}; records disagreements.
     *
     * @param inferred what inference found, or null
     * @param nodeDesc the producing node, for the origin of a fresh symbol
     * @param why      why inference found nothing (a recorded failure), or null
     */
    TensorInfo settle(String name, TensorInfo inferred, String nodeDesc, String why) {
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
                shape = List.of(session.symbols().fresh(name + "_numel", "shape of '" + name + "' (output of "
                        + nodeDesc + ") is not inferred" + (why == null ? "" : ": " + why)));
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
                shape.add(d != null ? resolveAlias(d) : session.symbols().fresh(name + "_d" + i,
                        "unnamed dim " + i + " of '" + name + "'"));
            }
        } else {
            shape = merge(name, decl, inf);
        }
        if (decl != null) {
            declared.put(name, declaredShapeOf(decl));
        }
        if (type == DataType.UNDEFINED && !uninferred.contains(name)) {
            uninferred.add(name);
        }
        boolean sameShape = inferred != null && shape.equals(inf);
        return new TensorInfo(type, shape, sameShape ? inferred.ints : null, sameShape ? inferred.floats : null,
                sameShape ? inferred.condition : null);
    }

    /** Declared and inferred shapes of the same rank, dim by dim. */
    private List<Dim> merge(String name, List<Dim> decl, List<Dim> inf) {
        List<Dim> shape = new ArrayList<>();
        List<String> diffs = new ArrayList<>();
        for (int i = 0; i < decl.size(); i++) {
            Dim d = decl.get(i);
            Dim e = inf.get(i);
            if (d == null) {
                shape.add(e);
            } else if (d.equals(e)) {
                shape.add(d);
            } else if (d instanceof Symbol s && !session.inputSymbolNames().contains(s.name())) {
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
        return shape;
    }

    private Dim resolveAlias(Dim d) {
        if (d instanceof Symbol s) {
            Dim a = aliases.get(s.name());
            return a == null ? d : a;
        }
        return d;
    }

    private static Shape declaredShapeOf(List<Dim> decl) {
        List<Dim> out = new ArrayList<>();
        for (Dim d : decl) {
            out.add(d == null ? new Symbol("?") : d);
        }
        return new Shape(out);
    }

    private DataType declaredType(String name) {
        for (ValueInfoProto vi : graph.getValueInfoList()) {
            if (vi.getName().equals(name) && vi.getType().hasTensorType()) {
                return TensorDecoder.dataType(vi.getType().getTensorType().getElemType(), "value_info '" + name + "'");
            }
        }
        for (ValueInfoProto vi : graph.getOutputList()) {
            if (vi.getName().equals(name) && vi.getType().hasTensorType()) {
                return TensorDecoder.dataType(vi.getType().getTensorType().getElemType(), "graph output '" + name + "'");
            }
        }
        return DataType.UNDEFINED;
    }

    /** Declared shapes by ONNX name (unnamed dims as {@code ?}). */
    Map<String, Shape> declared() {
        return Collections.unmodifiableMap(declared);
    }

    /** Declared shapes inference contradicts, in the order found. */
    List<ShapeDisagreement> disagreements() {
        return Collections.unmodifiableList(disagreements);
    }

    /** Values whose shape or type is neither declared nor inferred, in the order found. */
    List<String> uninferred() {
        return Collections.unmodifiableList(uninferred);
    }
}
