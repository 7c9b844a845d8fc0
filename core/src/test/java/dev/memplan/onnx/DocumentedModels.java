// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.PlanOptions;
import dev.memplan.SizeOracle;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.quality.QualityCase;
import dev.memplan.testing.SharedModels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The shared models with the bindings docs/onnx.md's model table gives for each (larger than
 * {@link ModelCases}' test bindings: these are the sizes whose plan quality docs/performance.md reports).
 */
public final class DocumentedModels {
    private DocumentedModels() {
    }

    /** Whether ../shared/models (or -Dmemplan.shared.dir) is there. */
    public static boolean present() {
        return SharedModels.present();
    }

    /** Where the models are looked for, for skip messages. */
    public static String where() {
        return SharedModels.dir().toAbsolutePath().toString();
    }

    /** The model table's bindings for {@code model} (a path relative to the models folder). */
    public static Map<String, Long> bindings(String model) {
        return ModelCases.readmeBindings(model);
    }

    /** Every shared model's outer graph at its model-table bindings, default options; empty when absent. */
    public static List<QualityCase> cases() {
        List<QualityCase> out = new ArrayList<>();
        for (String model : SharedModels.all()) {
            ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)),
                    ImportOptions.defaults());
            out.add(new QualityCase("model", model, imp.graph(), imp.views(), SizeOracle.bounded(bindings(model)),
                    PlanOptions.defaults()));
        }
        return out;
    }
}
