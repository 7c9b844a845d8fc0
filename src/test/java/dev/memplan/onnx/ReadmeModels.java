package dev.memplan.onnx;

import dev.memplan.PlanOptions;
import dev.memplan.SizeOracle;
import dev.memplan.quality.QualityCase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The shared models with the bindings the README's table gives for each (larger than
 * {@link ModelCases}' test bindings: these are the sizes whose plan quality the README reports).
 */
public final class ReadmeModels {
    private ReadmeModels() {
    }

    /** Whether ../shared/models (or -Dmemplan.shared.dir) is there. */
    public static boolean present() {
        return SharedModels.present();
    }

    /** Where the models are looked for, for skip messages. */
    public static String where() {
        return SharedModels.dir().toAbsolutePath().toString();
    }

    /** The README's bindings for {@code model} (a path relative to the models folder). */
    public static Map<String, Long> bindings(String model) {
        if (model.startsWith("minilm/")) {
            return Map.of("batch_size", 1L, "sequence_length", 128L);
        }
        if (model.startsWith("ort-genai/")) {
            return Map.of("batch_size", 4L, "seq_len", 128L, "past_seq_len", 896L, "total_seq_len", 1024L);
        }
        if (model.startsWith("silero/")) {
            return Map.of("batch", 1L, "sequence", 512L);
        }
        if (model.contains("super_resolution")) {
            return Map.of("batch_size", 1L);
        }
        if (model.contains("test_loop11")) {
            return Map.of("slice_out_slice_d0", 5L);
        }
        return Map.of();
    }

    /** Every shared model's outer graph at its README bindings, default options; empty when absent. */
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
