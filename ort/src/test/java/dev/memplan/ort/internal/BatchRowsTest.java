// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which graphs keep a batch's rows apart: x [batch, 8] through one node, Relu's output added on so
 * that a node whose output lost the rows still leaves the model an output with them. A node that
 * reads along the rows, reduces them, reorders them (a Concat or Split along them leaves a first
 * dim that is no longer whole rows) or is unknown keeps requests whole, and says so.
 */
@EngineIndependent
class BatchRowsTest {
    @ParameterizedTest(name = "{0} {1}={2}: {3}")
    @CsvSource(delimiter = '|', value = {
        "Relu      |      |    | apart",
        "Softmax   |      |    | apart",
        "Softmax   | axis | 1  | apart",
        "Softmax   | axis | 0  | works along the rows",
        "Softmax   | axis | -2 | works along the rows",
        "Concat    | axis | 1  | apart",
        "Concat    | axis | 0  | other than as whole rows",
        "Split     |      |    | other than as whole rows",
        "ArgMax    | axis | 1  | apart",
        "ReduceSum | axes | 0  | reduces the rows",
        "ReduceSum | axes | 1  | apart",
        "Transpose | perm | 1  | past its first dim",
        "CumSum    |      |    | is not known to keep rows apart",
    })
    void aNodeKeepsRowsApartOrSaysWhy(String op, String attribute, String value, String expected) {
        NodeProto.Builder node = NodeProto.newBuilder().setOpType(op).setName("n").addInput("x");
        if (op.equals("Concat")) {
            node.addInput("x");
        }
        if (op.equals("CumSum")) {
            node.addInput("axis0");
        }
        if (op.equals("Split")) {
            node.addOutput("y").addOutput("y2");
        } else {
            node.addOutput("y");
        }
        if (attribute != null) {
            AttributeProto.Builder a = AttributeProto.newBuilder().setName(attribute);
            if (attribute.equals("axis")) {
                a.setType(2).setI(Long.parseLong(value));
            } else if (attribute.equals("perm")) {
                a.setType(7).addInts(1).addInts(0);
            } else {
                a.setType(7).addInts(Long.parseLong(value));
            }
            node.addAttribute(a);
        }
        if (op.equals("ReduceSum")) {
            node.addAttribute(AttributeProto.newBuilder().setName("keepdims").setType(2).setI(1));
        }
        GraphProto.Builder graph = GraphProto.newBuilder().setName("one node")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType("batch", 8)))
                .addNode(node)
                .addNode(NodeProto.newBuilder().setOpType("Relu").setName("r").addInput("x").addOutput("z"))
                .addOutput(ValueInfoProto.newBuilder().setName("z").setType(floatType("batch", 8)));
        if (op.equals("CumSum")) {
            graph.addInput(ValueInfoProto.newBuilder().setName("axis0").setType(TypeProto.newBuilder()
                    .setTensorType(TypeProto.Tensor.newBuilder().setElemType(7).setShape(TensorShapeProto.newBuilder()))));
        }
        BatchRows rows = rowsOf(graph, 11);
        if (expected.equals("apart")) {
            assertEquals(Optional.of("batch"), rows.batch(), rows.why());
        } else {
            assertEquals(Optional.empty(), rows.batch());
            assertTrue(rows.why().contains(expected), rows.why());
        }
    }

    @ParameterizedTest(name = "inputs {0}, output {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "batch,8 batch,8 | batch,8 | apart",
        "batch,8 rows,8  | batch,8 | inputs start with different symbols",
        "8,batch         | 8,batch | does not start with a symbol",
        "batch,8         | 8,8     | does not start with batch",
    })
    void theInputsAndOutputsMustStartWithOneSymbol(String inputs, String output, String expected) {
        GraphProto.Builder graph = GraphProto.newBuilder().setName("inputs");
        List<String> names = new ArrayList<>();
        for (String shape : inputs.trim().split(" +")) {
            String name = "x" + names.size();
            names.add(name);
            graph.addInput(ValueInfoProto.newBuilder().setName(name).setType(floatType(shape.split(","))));
        }
        graph.addNode(NodeProto.newBuilder().setOpType("Identity").setName("i").addInput(names.get(0)).addOutput("y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType(output.trim().split(","))));
        BatchRows rows = rowsOf(graph, 17);
        if (expected.equals("apart")) {
            assertEquals(Optional.of("batch"), rows.batch(), rows.why());
        } else {
            assertTrue(rows.batch().isEmpty() && rows.why().contains(expected), rows.why());
        }
    }

    /** The graph as a model of {@code opset}, imported as the ort runtime imports ORT's graph, examined. */
    private static BatchRows rowsOf(GraphProto.Builder graph, int opset) {
        ModelProto model = ModelProto.newBuilder().setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).setGraph(graph).build();
        return BatchRows.of(OnnxImporter.importModel(OnnxModel.read(graph.getName(), model.toByteArray()),
                ImportOptions.defaults().withFoldConstants(false)), model);
    }

    private static TypeProto floatType(Object... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (Object d : dims) {
            String s = d.toString().trim();
            if (s.chars().allMatch(Character::isDigit)) {
                shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(Long.parseLong(s)));
            } else {
                shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimParam(s));
            }
        }
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1).setShape(shape)).build();
    }
}
