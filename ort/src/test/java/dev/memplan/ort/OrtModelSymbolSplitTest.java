// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.ort.internal.OrtArenaFigure;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An export whose inputs name both dims {@code batch} (MiniLM written as LangChain4j's fp32 export
 * declares them): ONNX Runtime runs a request of 2 rows x 16 tokens, so the ort runtime predicts it,
 * with the symbol split as memplan's own plan splits it, or with the input dims given in place of the
 * declared ones. Both paths give the same figure, at least ORT's own and within 2% of it (measured
 * on the ORT Java of the class path).
 */
@EngineIndependent
class OrtModelSymbolSplitTest {
    private static final Map<String, long[]> APART = Map.of("input_ids", new long[] {2, 16},
            "attention_mask", new long[] {2, 16}, "token_type_ids", new long[] {2, 16});
    private static final List<String> DIMS = List.of("batch", "seq");

    @TempDir
    static Path dir;
    private static Path batchBatch;

    @BeforeAll
    static void writeTheExport() throws Exception {
        SharedModels.requirePresent();
        ModelProto model = ModelProto.parseFrom(Files.readAllBytes(SharedModels.require(SharedModels.MINILM)));
        GraphProto.Builder graph = model.getGraph().toBuilder();
        for (int i = 0; i < graph.getInputCount(); i++) {
            ValueInfoProto.Builder input = graph.getInputBuilder(i);
            TensorShapeProto.Builder shape = input.getTypeBuilder().getTensorTypeBuilder().getShapeBuilder();
            for (int d = 0; d < shape.getDimCount(); d++) {
                shape.getDimBuilder(d).clearDimValue().setDimParam("batch");
            }
        }
        batchBatch = dir.resolve("minilm-batch-batch.onnx");
        Files.write(batchBatch, model.toBuilder().setGraph(graph).build().toByteArray());
    }

    @Test
    void aRequestThatSplitsASymbolIsPredictedAsOrtRunsIt() throws Exception {
        OrtModel ort = OrtModel.compile(batchBatch);
        OrtModel.Plan split = ort.planForInputs(APART);
        PlanValidator.validate(split.plan().plan(), split.plan().bindings());
        assertEquals(Map.of("batch", 2L, "batch@input_ids.1", 16L), split.plan().bindings());
        long predicted = split.predictedBytes().orElseThrow();
        long measured = OrtArenaFigure.measure(batchBatch, APART);
        System.out.printf("info: split batch x batch at 2 x 16: predicted %,d, ORT Java %,d%n", predicted, measured);
        assertTrue(predicted >= measured && predicted <= measured * 1.02, predicted + " against ORT's " + measured);

        assertEquals(split.predictedBytes(), ort.predict(split.plan()).predictedBytes(),
                "a split plan made elsewhere is predicted alike");
        OrtModel.Plan square = ort.planForInputs(Map.of("input_ids", new long[] {8, 8},
                "attention_mask", new long[] {8, 8}, "token_type_ids", new long[] {8, 8}));
        PlanValidator.validate(square.plan().plan(), square.plan().bindings());
        assertEquals(Map.of("batch", 8L), square.plan().bindings());
        assertTrue(square.predictedBytes().isPresent());
    }

    @Test
    void inputDimsGivenInPlaceOfTheDeclaredOnesReachOrtsGraph() throws Exception {
        ImportOptions named = ImportOptions.defaults().withInputDims(Map.of("input_ids", DIMS,
                "attention_mask", DIMS, "token_type_ids", DIMS));
        OrtModel ort = OrtModel.compile(batchBatch, named, PlanOptions.defaults(), OrtModel.Level.ALL);
        OrtModel.Plan plan = ort.plan(Map.of("batch", 2L, "seq", 16L));
        PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
        OrtModel.Plan split = OrtModel.compile(batchBatch).planForInputs(APART);
        assertEquals(split.predictedBytes(), plan.predictedBytes(), "the override and the split size ORT's graph alike");
    }
}
