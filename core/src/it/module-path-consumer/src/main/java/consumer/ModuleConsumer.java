// SPDX-License-Identifier: Apache-2.0
package consumer;

import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.ViewMap;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.CompiledModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs on the module path: memplan is a named module exporting its API only, and plans on the
 * native engine from there. Exits non-zero (failing the build) on any mismatch.
 */
public final class ModuleConsumer {
    private ModuleConsumer() {
    }

    public static void main(String[] args) {
        Module memplan = MemPlan.class.getModule();
        require(memplan.isNamed() && memplan.getName().equals("dev.memplan"), "memplan is module " + memplan);
        require(ModuleConsumer.class.getModule().getName().equals("memplan.consumer"), "consumer not modular");
        for (String api : new String[] {"dev.memplan", "dev.memplan.onnx", "dev.memplan.server"}) {
            require(memplan.isExported(api), api + " must be exported");
        }
        for (String internal : new String[] {"dev.memplan.engine", "dev.memplan.onnx.imports", "dev.memplan.onnx.proto",
                "dev.memplan.shaded.protobuf"}) {
            require(memplan.getPackages().contains(internal), internal + " is part of the module");
            require(!memplan.isExported(internal), internal + " must stay inside the module");
        }
        for (String elsewhere : new String[] {"dev.memplan.cli", "dev.memplan.ort", "dev.memplan.ort.internal"}) {
            // the command line and ONNX Runtime's part are modules of their own
            require(!memplan.getPackages().contains(elsewhere), elsewhere + " is not part of the planner's module");
        }
        try {
            Class.forName("dev.memplan.engine.NativeEngine").getMethod("instance").invoke(null);
            throw new IllegalStateException("consumer check failed: dev.memplan.engine is reachable from outside");
        } catch (IllegalAccessException expected) {
            // encapsulated, as it should be
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("consumer check failed: " + e, e);
        }

        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of("batch", 1024));
        int h = b.value("h", DataType.FLOAT32, Shape.of("batch", 1024));
        int y = b.value("y", DataType.FLOAT32, Shape.of("batch", 1024));
        b.input(x).output(y);
        b.node("relu1", "Relu", new int[] {x}, new int[] {h});
        b.node("relu2", "Relu", new int[] {h}, new int[] {y});
        Schedule schedule = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults());
        ActivationPlan plan = schedule.plan(Map.of("batch", 2L)).orElseThrow();
        PlanValidator.validate(plan);
        require("native".equals(plan.engine()), "planned on " + plan.engine() + ", expected native");

        Path miniLm = Path.of(args[0], "minilm/all-minilm-l6-v2-q.onnx");
        if (!Files.isRegularFile(miniLm)) {
            System.out.println("consumer: shared models absent at " + miniLm + "; planned the built graph only");
            return;
        }
        // reading ONNX exercises the relocated protobuf inside the module
        CompiledModel model = CompiledModel.compile(miniLm);
        OnnxPlan p = model.planForInputs(Map.of("input_ids", new long[] {1, 128},
                "attention_mask", new long[] {1, 128}, "token_type_ids", new long[] {1, 128}));
        PlanValidator.validate(p.plan());
        require("native".equals(p.plan().engine()), "MiniLM planned on " + p.plan().engine());
        System.out.println("consumer (module path): MiniLM [1, 128] peak " + p.plan().peakBytes() + " B on "
                + p.plan().engine());
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("consumer check failed: " + what);
        }
    }
}
