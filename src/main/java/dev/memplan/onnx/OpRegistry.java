// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ops shape inference supports, keyed by (domain, op type), each with one {@link ShapeRule}.
 * The default domain is spelled {@code ""}; {@code "ai.onnx"} is the same domain. An op that is
 * not registered is not inferred: its outputs take their declared shapes or fresh symbols.
 */
final class OpRegistry {
    /** The registry of every op memplan infers (filled by {@link OpInference#registerAll}). */
    static final OpRegistry DEFAULT = OpInference.registerAll(new OpRegistry());

    /** One registered op: the opset versions of its domain the rule covers, and the rule. */
    record Entry(String domain, String opType, int sinceVersion, int lastVersion, ShapeRule rule) {
    }

    private record Key(String domain, String opType) {
    }

    private final Map<Key, Entry> entries = new HashMap<>();

    /** {@code domain} with {@code "ai.onnx"} spelled as the default domain {@code ""}. */
    static String canonicalDomain(String domain) {
        return domain == null || domain.equals("ai.onnx") ? "" : domain;
    }

    /**
     * Registers {@code opType} of {@code domain}, from {@code sinceVersion} of that domain on.
     *
     * @throws IllegalStateException when the op is registered twice
     */
    OpRegistry add(String domain, String opType, int sinceVersion, ShapeRule rule) {
        return add(domain, opType, sinceVersion, OnnxOp.CURRENT, rule);
    }

    /** As {@link #add(String, String, int, ShapeRule)}, for an op removed after {@code lastVersion}. */
    OpRegistry add(String domain, String opType, int sinceVersion, int lastVersion, ShapeRule rule) {
        String d = canonicalDomain(domain);
        if (entries.putIfAbsent(new Key(d, opType), new Entry(d, opType, sinceVersion, lastVersion, rule)) != null) {
            throw new IllegalStateException(d + ":" + opType + " is registered twice");
        }
        return this;
    }

    /** The rule of {@code opType} in {@code domain}, or null when the op is not supported. */
    ShapeRule rule(String domain, String opType) {
        Entry e = entries.get(new Key(canonicalDomain(domain), opType));
        return e == null ? null : e.rule();
    }

    /** Every registered op, by domain then op type. */
    List<Entry> entries() {
        List<Entry> all = new ArrayList<>(entries.values());
        all.sort(Comparator.comparing(Entry::domain).thenComparing(Entry::opType));
        return all;
    }
}
