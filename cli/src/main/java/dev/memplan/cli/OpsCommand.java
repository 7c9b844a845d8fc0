// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.onnx.rules.OnnxOp;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code memplan ops}: the ONNX ops whose output shapes the importer infers, one per line as
 * {@code domain op opsets} ({@code ai.onnx Resize 10+}, {@code ai.onnx Upsample 1-9}), by domain
 * then op, followed by the ops the importer handles structurally (Constant, If, Loop, Scan). An
 * op not listed still imports: its outputs take their declared shapes or fresh symbols.
 */
@Command(name = "ops", mixinStandardHelpOptions = true, versionProvider = MemplanCli.Version.class,
        description = {"Lists the ONNX ops whose shapes memplan infers, by domain and opset range.",
                ExitCode.SUMMARY})
final class OpsCommand implements Callable<Integer> {
    /** The registry's opset ranges are listed, not checked (docs/design.md, the op registry). */
    static final String OPSET_NOTE = "opset ranges are listed, not enforced: an op's rule applies at any opset of its"
            + " domain, as ONNX Runtime runs some ops below their ONNX opset";

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<OnnxOp> inferred = OnnxOp.supported();
        int width = 0;
        for (OnnxOp op : inferred) {
            width = Math.max(width, op.domainName().length() + 1 + op.opType().length());
        }
        for (OnnxOp op : inferred) {
            out.println(row(op, width));
        }
        out.println("imported structurally (not by a shape rule):");
        for (OnnxOp op : OnnxOp.importedByStructure()) {
            out.println(row(op, width));
        }
        out.println(OPSET_NOTE);
        out.flush();
        return ExitCode.OK;
    }

    private static String row(OnnxOp op, int width) {
        String name = op.domainName() + " " + op.opType();
        return name + " ".repeat(Math.max(1, width - name.length() + 2)) + op.versions();
    }
}
