// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR event {@code dev.memplan.Compile}: one {@link CompiledModel#compile} (read, import, compile). */
@Name("dev.memplan.Compile")
@Label("memplan compile")
@Category({"memplan"})
@Description("An ONNX model read, imported (shape inference, constant folding) and compiled for planning")
@StackTrace(false)
final class CompileEvent extends Event {
    @Label("Model")
    String model;

    @Label("Engine")
    @Description("native or java")
    String engine;

    @Label("Nodes")
    int nodes;

    @Label("Owners")
    @Description("Values that own a buffer")
    int owners;

    @Label("Symbols")
    @Description("Symbols a request binds, comma-separated")
    String symbols;

    @Label("Control-flow nodes")
    int controlFlowNodes;
}
