// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.shaded.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a Loop's probe ({@link KernelProbes}) is fed for its trip count {@code M} and its condition:
 * the trip count memplan's shapes give its scan outputs at the probe's binding, and true, so ORT's
 * outputs follow memplan's shapes and its blocks can be fitted against the trip count like any
 * size. An input that is a constant keeps its data; a Loop without scan outputs is fed nothing here
 * (memplan's shapes say nothing of its trip count).
 */
final class LoopTripFeed {
    private LoopTripFeed() {
    }

    /**
     * {@return the constants {@code proto} is fed in place of its non-constant trip count and
     * condition at {@code shapes}, none when it is no Loop or has no scan output}
     */
    static List<TensorProto> of(Graph graph, NodeProto proto, BoundShapes shapes, Map<String, TensorProto> constants) {
        if (!OrtKernels.isLoop(proto.getDomain(), proto.getOpType())) {
            return List.of();
        }
        Long trips = tripCount(graph, proto, shapes);
        if (trips == null) {
            return List.of();
        }
        List<TensorProto> out = new ArrayList<>();
        String m = proto.getInputCount() > 0 ? proto.getInput(0) : "";
        if (!m.isEmpty() && !constants.containsKey(m)) {
            out.add(TensorProto.newBuilder().setName(m).setDataType(DataType.INT64.onnxCode())
                    .setRawData(ByteString.copyFrom(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                            .putLong(trips).array())).build());
        }
        String cond = proto.getInputCount() > 1 ? proto.getInput(1) : "";
        if (!cond.isEmpty() && !cond.equals(m) && !constants.containsKey(cond)) {
            out.add(TensorProto.newBuilder().setName(cond).setDataType(DataType.BOOL.onnxCode())
                    .setRawData(ByteString.copyFrom(new byte[] {1})).build());
        }
        return out;
    }

    /** The leading dim of the Loop's first scan output (those after its loop-carried ones), or null. */
    private static Long tripCount(Graph graph, NodeProto proto, BoundShapes shapes) {
        int carried = Math.max(0, proto.getInputCount() - 2);
        for (int i = carried; i < proto.getOutputCount(); i++) {
            String name = proto.getOutput(i);
            if (name.isEmpty()) {
                continue;
            }
            int v = graph.valueId(name).orElse(Graph.ABSENT);
            if (v != Graph.ABSENT && graph.value(v).shape().rank() > 0) {
                return shapes.dim(v, 0);
            }
        }
        return null;
    }
}
