// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import com.google.protobuf.ByteString;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Builds small ONNX models in tests, through the generated protobuf classes. */
public final class OnnxWriter {
    static final int FLOAT = 1;
    static final int UINT8 = 2;
    static final int INT64 = 7;
    static final int BOOL = 9;

    private final GraphProto.Builder graph = GraphProto.newBuilder().setName("test");

    static OnnxWriter graph() {
        return new OnnxWriter();
    }

    /** A tensor type; dims are Long (static), String (dim_param) or null (unnamed). */
    static TypeProto type(int elemType, Object... dims) {
        TensorShapeProto.Builder s = TensorShapeProto.newBuilder();
        for (Object d : dims) {
            TensorShapeProto.Dimension.Builder b = TensorShapeProto.Dimension.newBuilder();
            if (d instanceof Number n) {
                b.setDimValue(n.longValue());
            } else if (d instanceof String p) {
                b.setDimParam(p);
            }
            s.addDim(b);
        }
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(elemType).setShape(s))
                .build();
    }

    static ValueInfoProto info(String name, TypeProto type) {
        return ValueInfoProto.newBuilder().setName(name).setType(type).build();
    }

    /**
     * A rank-1 int64 initializer of {@code values}, raw little-endian data.
     *
     * @param name   its name
     * @param values its values
     * @return the tensor
     */
    public static TensorProto int64s(String name, long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return TensorProto.newBuilder().setName(name).setDataType(INT64).addDims(values.length)
                .setRawData(ByteString.copyFrom(b.array())).build();
    }

    /** A rank-1 float initializer of {@code values}, raw little-endian data. */
    static TensorProto floatValues(String name, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return TensorProto.newBuilder().setName(name).setDataType(FLOAT).addDims(values.length)
                .setRawData(ByteString.copyFrom(b.array())).build();
    }

    /** A rank-0 int64 tensor. */
    static TensorProto scalar(String name, long value) {
        return int64s(name, value).toBuilder().clearDims().build();
    }

    static TensorProto floats(String name, long... dims) {
        long n = 1;
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(FLOAT);
        for (long d : dims) {
            t.addDims(d);
            n *= d;
        }
        return t.setRawData(ByteString.copyFrom(new byte[(int) (n * 4)])).build();
    }

    /** A uint8 tensor of zeros with these dims. */
    static TensorProto uint8s(String name, long... dims) {
        long n = 1;
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(UINT8);
        for (long d : dims) {
            t.addDims(d);
            n *= d;
        }
        return t.setRawData(ByteString.copyFrom(new byte[(int) n])).build();
    }

    static AttributeProto stringAttr(String name, String v) {
        return AttributeProto.newBuilder().setName(name).setType(3).setS(ByteString.copyFromUtf8(v)).build();
    }

    static AttributeProto ints(String name, long... v) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(7);
        for (long x : v) {
            a.addInts(x);
        }
        return a.build();
    }

    static AttributeProto intAttr(String name, long v) {
        return AttributeProto.newBuilder().setName(name).setType(2).setI(v).build();
    }

    static AttributeProto graphAttr(String name, GraphProto g) {
        return AttributeProto.newBuilder().setName(name).setType(5).setG(g).build();
    }

    OnnxWriter input(String name, TypeProto type) {
        graph.addInput(info(name, type));
        return this;
    }

    OnnxWriter output(String name, TypeProto type) {
        graph.addOutput(info(name, type));
        return this;
    }

    OnnxWriter valueInfo(String name, TypeProto type) {
        graph.addValueInfo(info(name, type));
        return this;
    }

    OnnxWriter outputNoShape(String name) {
        graph.addOutput(ValueInfoProto.newBuilder().setName(name));
        return this;
    }

    OnnxWriter initializer(TensorProto t) {
        graph.addInitializer(t);
        return this;
    }

    OnnxWriter node(String op, String[] inputs, String[] outputs, AttributeProto... attrs) {
        NodeProto.Builder n = NodeProto.newBuilder().setOpType(op).setName(outputs.length > 0 ? outputs[0] + "_node" : op);
        for (String i : inputs) {
            n.addInput(i);
        }
        for (String o : outputs) {
            n.addOutput(o);
        }
        for (AttributeProto a : attrs) {
            n.addAttribute(a);
        }
        graph.addNode(n);
        return this;
    }

    GraphProto buildGraph() {
        return graph.build();
    }

    byte[] bytes(long opset) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("memplan-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset))
                .setGraph(graph).build().toByteArray();
    }

    OnnxModel model(long opset) {
        return OnnxModel.read("test-model", bytes(opset));
    }

    static String[] in(String... names) {
        return names;
    }

    static String[] out(String... names) {
        return names;
    }
}
