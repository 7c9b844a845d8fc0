// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Graph;
import dev.memplan.Shape;
import java.util.Optional;
import java.util.function.Function;

/**
 * The shapes ONNX Runtime's planner compares ({@code SameSize}), per value: what ORT knew of each
 * value's shape at load, with the dims symbolic. EXPERIMENT: mode chosen by a property.
 */
final class OrtPlannerShapes {
    private OrtPlannerShapes() {
    }

    static SameSizeKey[] of(Graph graph, Function<String, Optional<Shape>> declared, String mode) {
        SameSizeKey[] keys = new SameSizeKey[graph.valueCount()];
        for (int v = 0; v < keys.length; v++) {
            var value = graph.value(v);
            Optional<Shape> d = declared.apply(value.name());
            if (d.isPresent()) {
                keys[v] = SameSizeKey.of(value.dataType().bits(), d.get());
            } else if (mode.equals("declared-else-memplan") || mode.equals("memplan")) {
                keys[v] = SameSizeKey.of(value);
            } else {
                keys[v] = null;
            }
            if (mode.equals("memplan")) {
                keys[v] = SameSizeKey.of(value);
            }
        }
        return keys;
    }
}
