// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the structure tests read from the sources: a file's code without its comments and string
 * contents, and the loops of a graph of names (files or packages) drawn from that code.
 */
final class SourceGraph {
    private SourceGraph() {
    }

    /** The text without comments and string contents, so only code can make an arrow. */
    static String code(String text) {
        return text.replaceAll("\"(?:\\\\.|[^\"\\\\\\n])*\"", "\"\"")
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\\n]*", "");
    }

    /**
     * The loops of {@code arrows} (from each name to the names it points at): every strongly
     * connected component of more than one name (Tarjan), each sorted, in the order found.
     */
    static List<List<String>> loops(Map<String, ? extends Collection<String>> arrows) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        List<List<String>> out = new ArrayList<>();
        for (String v : arrows.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, arrows, index, low, stack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, ? extends Collection<String>> arrows, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, List<List<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        Collection<String> targets = arrows.get(v);
        for (String w : targets == null ? List.<String>of() : targets) {
            if (!index.containsKey(w)) {
                connect(w, arrows, index, low, stack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                component.sort(null);
                out.add(component);
            }
        }
    }
}
