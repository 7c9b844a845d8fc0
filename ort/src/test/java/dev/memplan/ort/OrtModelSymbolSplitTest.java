// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.server.CompiledModel;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ort runtime cannot follow a symbol split or input dims given in place of the declared ones:
 * ONNX Runtime's saved graph keeps the file's names, so its prediction would size both dims alike.
 * It refuses both, on one line, instead of predicting a wrong arena.
 */
class OrtModelSymbolSplitTest {
    private static final Map<String, long[]> APART = Map.of("input_ids", new long[] {2, 16},
            "attention_mask", new long[] {2, 16}, "token_type_ids", new long[] {2, 16});

    @Test
    void inputDimsAreRefusedBeforeOrtLoads() {
        List<String> dims = List.of("batch", "seq");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OrtModel.compile(SharedModels.require(SharedModels.MINILM),
                        ImportOptions.defaults().withInputDims(Map.of("input_ids", dims)), PlanOptions.defaults(),
                        OrtModel.Level.ALL));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().startsWith("input dims (ImportOptions.withInputDims, for input_ids) do not reach"),
                e.getMessage());
    }

    /** MiniLM written as its fp32 export declares its inputs, {@code [batch, batch]}. */
    @Test
    void aRequestThatSplitsASymbolIsRefusedAndOneThatDoesNotIsPredicted(@TempDir Path dir) throws Exception {
        ModelProto model = ModelProto.parseFrom(Files.readAllBytes(SharedModels.require(SharedModels.MINILM)));
        GraphProto.Builder graph = model.getGraph().toBuilder();
        for (int i = 0; i < graph.getInputCount(); i++) {
            ValueInfoProto.Builder input = graph.getInputBuilder(i);
            TensorShapeProto.Builder shape = input.getTypeBuilder().getTensorTypeBuilder().getShapeBuilder();
            for (int d = 0; d < shape.getDimCount(); d++) {
                shape.getDimBuilder(d).clearDimValue().setDimParam("batch");
            }
        }
        Path file = dir.resolve("minilm-batch-batch.onnx");
        Files.write(file, model.toBuilder().setGraph(graph).build().toByteArray());

        OrtModel ort = OrtModel.compile(file);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ort.planForInputs(APART));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().startsWith("symbol 'batch' is 2 at input 'input_ids' dim 0 but 16 at input"
                + " 'input_ids' dim 1: memplan's own plan splits the symbol"), e.getMessage());

        CompiledModel own = ort.model(); // memplan's own plan does split it
        var split = own.planForInputs(APART);
        PlanValidator.validate(split.plan(), split.bindings());
        IllegalArgumentException predict = assertThrows(IllegalArgumentException.class, () -> ort.predict(split));
        assertTrue(predict.getMessage().contains("batch@input_ids.1"), predict.getMessage());

        Map<String, long[]> square = Map.of("input_ids", new long[] {8, 8}, "attention_mask", new long[] {8, 8},
                "token_type_ids", new long[] {8, 8});
        OrtModel.Plan plan = ort.planForInputs(square);
        PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
        assertEquals(Map.of("batch", 8L), plan.plan().bindings());
        assertTrue(plan.predictedBytes().isPresent());
    }
}
