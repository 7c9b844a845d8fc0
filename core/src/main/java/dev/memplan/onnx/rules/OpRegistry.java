// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.ImportOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything memplan knows about each ONNX op, one entry per (domain, op type): its shape rule, its
 * constant fold, whether its output is a view of input 0, which inputs it may overwrite in place,
 * how it carries an If condition, and for Constant, If, Loop and Scan that the importer handles the
 * op itself. The importer's steps ({@link OpInference}, {@link ConstantFolder}, {@link ViewPolicy},
 * {@link InPlaceOps}, {@link ConditionTracking}, {@code FoldDecision}, {@code ControlFlowImporter})
 * read their facts here and name no op themselves; {@code OpLiteralTest} holds them to that.
 *
 * <p>The default domain is spelled {@code ""}; {@code "ai.onnx"} is the same domain. An op that is
 * not registered is not inferred: its outputs take their declared shapes or fresh symbols.
 *
 * <p>Opset ranges are listing-only: {@code memplan ops} and {@link OnnxOp#supported()} show them,
 * but lookups ignore the model's opset. ONNX Runtime runs ops in the default domain below their
 * ONNX opset (its own LayerNormalization before opset 17, for one), and exported models use them;
 * a rule whose output depends on the opset reads {@link InferenceContext#opset()} itself.
 */
public final class OpRegistry {
    /** The registry of every op memplan knows (filled by {@link OpInference#registerAll}). */
    public static final OpRegistry DEFAULT = OpInference.registerAll(new OpRegistry());

    /** Whether an op's output 0 lives in input 0's buffer, for {@link ViewPolicy}. */
    enum ViewKind {
        /** The output owns its buffer. */
        NONE,
        /** The same bytes under another shape: ONNX Runtime aliases these (Reshape, Identity...). */
        ALIAS,
        /** A strided view of input 0 (Slice, Transpose, Expand): only an executor with strides aliases it. */
        STRIDED
    }

    /** The ops the importer handles itself rather than by a shape rule. */
    public enum Structure {
        /** Becomes a weight. */
        CONSTANT("Constant", 1),
        /** Its branches are imported as graphs; a decided condition keeps one. */
        IF("If", 1),
        /** Its body is imported as a graph. */
        LOOP("Loop", 1),
        /** Its body is imported as a graph. */
        SCAN("Scan", 8);

        private final String opType;
        private final int sinceVersion;

        Structure(String opType, int sinceVersion) {
            this.opType = opType;
            this.sinceVersion = sinceVersion;
        }

        /** {@return the default-domain op type} */
        public String opType() {
            return opType;
        }

        /** {@return whether the op has bodies to import} */
        public boolean isControlFlow() {
            return this != CONSTANT;
        }
    }

    /**
     * One registered op.
     *
     * @param domain         the canonical domain ({@code ""} for ai.onnx)
     * @param opType         the op type
     * @param sinceVersion   the first opset version of its domain it is listed for
     * @param lastVersion    the last opset version, {@link OnnxOp#CURRENT} while the op exists
     * @param rule           its shape inference; null for the ops of {@link Structure}
     * @param fold           its constant fold, or null when it never folds
     * @param view           whether output 0 is a view of input 0
     * @param inPlace        the inputs output 0 may overwrite, or null
     * @param condition      how it carries an If condition, or null
     * @param valueFromShape whether its value is known from its input's shape alone (Shape, Size)
     * @param structure      for an op the importer handles itself, which one; else null
     */
    public record Entry(String domain, String opType, int sinceVersion, int lastVersion, ShapeRule rule, FoldRule fold,
                 ViewKind view, InPlaceOps.Entry inPlace, ConditionRule condition, boolean valueFromShape,
                 Structure structure) {
        private Entry with(FoldRule f, ViewKind v, InPlaceOps.Entry p, ConditionRule cond, boolean fromShape) {
            return new Entry(domain, opType, sinceVersion, lastVersion, rule, f, v, p, cond, fromShape, structure);
        }
    }

    /**
     * The facts of one op being registered beyond its shape rule; each call replaces the entry, so
     * an op's whole line reads {@code r.add(...).fold(...).view(...)}.
     */
    final class Registration {
        private final Key key;

        private Registration(Key key) {
            this.key = key;
        }

        private Entry entry() {
            return entries.get(key);
        }

        /** Output 0 is computed at import when the inputs are known constants. */
        Registration fold(FoldRule fold) {
            Entry e = entry();
            entries.put(key, e.with(fold, e.view(), e.inPlace(), e.condition(), e.valueFromShape()));
            return this;
        }

        /** Output 0 is a view of input 0 of the given kind. */
        Registration view(ViewKind view) {
            Entry e = entry();
            entries.put(key, e.with(e.fold(), view, e.inPlace(), e.condition(), e.valueFromShape()));
            return this;
        }

        /** Output 0 may overwrite one of {@code inputs}, as {@code source} says. */
        Registration inPlace(String source, int... inputs) {
            if (!key.domain().isEmpty()) {
                // the table lists ONNX Runtime's CPU kernels of the default domain (InPlaceOps)
                throw new IllegalStateException(key.domain() + ":" + key.opType() + ": in-place entries are for"
                        + " default-domain ops only");
            }
            Entry e = entry();
            entries.put(key, e.with(e.fold(), e.view(), new InPlaceOps.Entry(inputs.clone(), source), e.condition(),
                    e.valueFromShape()));
            return this;
        }

        /** Output 0 carries an If condition built from the inputs' as {@code condition} says. */
        Registration condition(ConditionRule condition) {
            Entry e = entry();
            entries.put(key, e.with(e.fold(), e.view(), e.inPlace(), condition, e.valueFromShape()));
            return this;
        }

        /** Output 0's value follows from input 0's shape alone: it folds whenever inference knows it. */
        Registration valueFromShape() {
            Entry e = entry();
            entries.put(key, e.with(e.fold(), e.view(), e.inPlace(), e.condition(), true));
            return this;
        }
    }

    private record Key(String domain, String opType) {
    }

    private final Map<Key, Entry> entries = new HashMap<>();

    OpRegistry() {
        for (Structure s : Structure.values()) {
            entries.put(new Key("", s.opType()), new Entry("", s.opType(), s.sinceVersion, OnnxOp.CURRENT, null, null,
                    ViewKind.NONE, null, null, false, s));
        }
    }

    /** {@code domain} with {@code "ai.onnx"} spelled as the default domain {@code ""}. */
    public static String canonicalDomain(String domain) {
        return domain == null || domain.equals("ai.onnx") ? "" : domain;
    }

    /**
     * Registers {@code opType} of {@code domain}, from {@code sinceVersion} of that domain on.
     *
     * @throws IllegalStateException when the op is registered twice
     */
    Registration add(String domain, String opType, int sinceVersion, ShapeRule rule) {
        return add(domain, opType, sinceVersion, OnnxOp.CURRENT, rule);
    }

    /** As {@link #add(String, String, int, ShapeRule)}, for an op removed after {@code lastVersion}. */
    Registration add(String domain, String opType, int sinceVersion, int lastVersion, ShapeRule rule) {
        String d = canonicalDomain(domain);
        Key key = new Key(d, opType);
        if (entries.putIfAbsent(key, new Entry(d, opType, sinceVersion, lastVersion, rule, null, ViewKind.NONE,
                null, null, false, null)) != null) {
            throw new IllegalStateException(d + ":" + opType + " is registered twice");
        }
        return new Registration(key);
    }

    /** The entry of {@code opType} in {@code domain}, or null when memplan does not know the op. */
    public Entry entry(String domain, String opType) {
        return entries.get(new Key(canonicalDomain(domain), opType));
    }

    /** The rule of {@code opType} in {@code domain}, or null when the op is not inferred. */
    ShapeRule rule(String domain, String opType) {
        Entry e = entry(domain, opType);
        return e == null ? null : e.rule();
    }

    /** {@return which op the importer handles itself {@code opType} of {@code domain} is, or null} */
    public Structure structure(String domain, String opType) {
        Entry e = entry(domain, opType);
        return e == null ? null : e.structure();
    }

    /** Every op with a shape rule, by domain then op type. */
    List<Entry> entries() {
        return sorted(false);
    }

    /** Every op the importer handles itself (Constant, If, Loop, Scan), by op type. */
    List<Entry> structural() {
        return sorted(true);
    }

    private List<Entry> sorted(boolean structural) {
        List<Entry> all = new ArrayList<>();
        for (Entry e : entries.values()) {
            if ((e.structure() != null) == structural) {
                all.add(e);
            }
        }
        all.sort(Comparator.comparing(Entry::domain).thenComparing(Entry::opType));
        return all;
    }

    /**
     * {@return whether output 0 of an {@code opType} node is a view of its input 0 under
     * {@code policy}} Only default-domain ops are views.
     *
     * @param policy which view kinds become views
     * @param domain the op's domain
     * @param opType the op type
     */
    public static boolean isView(ImportOptions.ViewPolicy policy, String domain, String opType) {
        Entry e = DEFAULT.entry(domain, opType);
        return e != null && viewKinds(policy).contains(e.view());
    }

    /** The view kinds a policy makes views. */
    private static Set<ViewKind> viewKinds(ImportOptions.ViewPolicy policy) {
        return switch (policy) {
            case ORT -> Set.of(ViewKind.ALIAS);
            case STRIDED -> Set.of(ViewKind.ALIAS, ViewKind.STRIDED);
            case NONE -> Set.of();
        };
    }
}
