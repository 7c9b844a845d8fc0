// SPDX-License-Identifier: Apache-2.0
package consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.memplan.Admission;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A server on protobuf 3.25 and Jackson 2.12: uses both, then reads ONNX models with memplan and
 * plans them on the native engine. Exits non-zero (failing the build) on any mismatch.
 */
public final class ServerConsumer {
    private ServerConsumer() {
    }

    public static void main(String[] args) throws IOException {
        checkClassPath();
        checkOwnLibraries();

        // memplan reads a model this server wrote with its own protobuf 3.25.
        CompiledModel tiny = CompiledModel.compile(OnnxModel.read("tiny.onnx", tinyModel()), ImportOptions.defaults(),
                PlanOptions.defaults());
        OnnxPlan tinyPlan = tiny.planForInputs(Map.of("x", new long[] {2, 1024}));
        PlanValidator.validate(tinyPlan.plan());
        require("native".equals(tiny.engine()), "expected the native engine, got " + tiny.engine());
        // h and y share one buffer: the second Relu overwrites h in place (docs/design.md §3b)
        require(tinyPlan.plan().peakBytes() == 2 * 1024 * 4, "tiny model peak " + tinyPlan.plan().peakBytes());

        Path models = Path.of(args[0]);
        Path miniLm = models.resolve("minilm/all-minilm-l6-v2-q.onnx");
        Path silero = models.resolve("silero/silero_vad_op18_ifless.onnx");
        if (!Files.isRegularFile(miniLm) || !Files.isRegularFile(silero)) {
            System.out.println("consumer: shared models absent at " + models.toAbsolutePath()
                    + "; planned the tiny model only");
            return;
        }
        CompiledModel model = CompiledModel.compile(miniLm);
        OnnxPlan plan = model.planForInputs(Map.of("input_ids", new long[] {4, 512},
                "attention_mask", new long[] {4, 512}, "token_type_ids", new long[] {4, 512}));
        PlanValidator.validate(plan.plan());
        require("native".equals(plan.plan().engine()), "MiniLM planned on " + plan.plan().engine());
        long budget = Admission.peakAt(model, "sequence_length", Map.of("batch_size", 4L), 256);
        OptionalLong longest = Admission.largestFitting(model, "sequence_length", Map.of("batch_size", 4L), budget, 512);
        require(longest.isPresent() && longest.getAsLong() >= 256 && longest.getAsLong() < 512,
                "admission at a 256-token budget answered " + longest);

        // admission counts the If body's transient need: with slots plans Silero needs 14,813 B, not
        // the 1,033 B of its outer plan; the default (offsets) figure matches the recompiling planner's
        Map<String, Long> vadBindings = Map.of("batch", 1L, "sequence", 512L);
        CompiledModel vadSlots = CompiledModel.compile(silero, ImportOptions.defaults(),
                PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        OptionalLong slotsAdmission = vadSlots.reservationBytes(vadBindings);
        require(slotsAdmission.equals(OptionalLong.of(14_813)), "Silero slots admission " + slotsAdmission);
        CompiledModel vad = CompiledModel.compile(silero);
        OnnxPlan vadPlan = vad.plan(vadBindings);
        OptionalLong admission = vad.reservationBytes(vadBindings);
        require(admission.equals(CompiledModel.compile(silero).plan(vadBindings).admissionBytes())
                && admission.getAsLong() > vadPlan.plan().peakBytes(), "Silero admission (with its If body) " + admission);
        System.out.println("consumer: MiniLM [4, 512] peak " + plan.plan().peakBytes() + " B on "
                + plan.plan().engine() + ", longest sequence at batch 4 within " + budget + " B: "
                + longest.getAsLong() + "; Silero admission " + admission.getAsLong() + " B (slots plans: "
                + slotsAdmission.getAsLong() + " B)");
    }

    /** memplan brought JavaCPP and nothing else: protobuf and Jackson here are this server's own. */
    private static void checkClassPath() {
        List<String> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar")) {
                jars.add(Path.of(entry).getFileName().toString().replaceAll("-[0-9].*\\.jar$", ""));
            }
        }
        jars.sort(null);
        require(jars.equals(List.of("jackson-annotations", "jackson-core", "jackson-databind", "javacpp", "memplan",
                "protobuf-java")), "unexpected runtime class path " + jars);
    }

    private static void checkOwnLibraries() throws IOException {
        try {
            Class.forName("com.google.protobuf.RuntimeVersion"); // protobuf 4.26+ only
            throw new IllegalStateException("a protobuf newer than 3.25 is on the class path");
        } catch (ClassNotFoundException expected) {
            // protobuf 3.25 it is
        }
        Struct s = Struct.newBuilder().putFields("tokens", Value.newBuilder().setNumberValue(512).build()).build();
        require(Struct.parseFrom(s.toByteArray()).equals(s), "protobuf 3.25 round trip");
        String json = new ObjectMapper().writeValueAsString(Map.of("tokens", 512));
        require(json.equals("{\"tokens\":512}"), "jackson wrote " + json);
        require(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.getMinorVersion() == 12,
                "jackson 2.12 expected, got " + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
    }

    /** x [batch, 1024] float -> Relu -> h -> Relu -> y, written with protobuf 3.25. */
    static byte[] tinyModel() throws IOException {
        byte[] dims = concat(message(1, string(2, "batch")), message(1, varint64(1, 1024)));
        byte[] floatTensor = message(1, concat(varint32(1, 1), message(2, dims)));
        byte[] graph = concat(
                message(1, concat(string(1, "x"), string(2, "h"), string(3, "relu1"), string(4, "Relu"))),
                message(1, concat(string(1, "h"), string(2, "y"), string(3, "relu2"), string(4, "Relu"))),
                string(2, "tiny"),
                message(11, concat(string(1, "x"), message(2, floatTensor))),
                message(12, concat(string(1, "y"), message(2, floatTensor))));
        return concat(varint64(1, 8), message(7, graph), message(8, concat(string(1, ""), varint64(2, 17))));
    }

    private static byte[] string(int field, String value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeString(field, value);
        c.flush();
        return out.toByteArray();
    }

    private static byte[] varint64(int field, long value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeInt64(field, value);
        c.flush();
        return out.toByteArray();
    }

    private static byte[] varint32(int field, int value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeInt32(field, value);
        c.flush();
        return out.toByteArray();
    }

    private static byte[] message(int field, byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeByteArray(field, body);
        c.flush();
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("consumer check failed: " + what);
        }
    }
}
