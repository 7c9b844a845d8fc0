// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.read;

import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A node's attributes by name, with typed getters that fall back to a default. */
public final class Attrs {
    private final Map<String, AttributeProto> byName = new HashMap<>();
    /** The attribute a getter read last: what a failed shape rule could not use. */
    private String lastRead;

    public Attrs(NodeProto node) {
        for (AttributeProto a : node.getAttributeList()) {
            byName.putIfAbsent(a.getName(), a);
        }
    }

    /** {@return the name of the attribute read last, or null} */
    public String lastRead() {
        return lastRead;
    }

    public boolean has(String name) {
        return byName.containsKey(name);
    }

    public long getInt(String name, long dflt) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        return a == null || !a.hasI() ? dflt : a.getI();
    }

    public float getFloat(String name, float dflt) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        return a == null || !a.hasF() ? dflt : a.getF();
    }

    public String getString(String name, String dflt) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        return a == null || !a.hasS() ? dflt : a.getS().toString(StandardCharsets.UTF_8);
    }

    /** The ints, or null when the attribute is absent. */
    public long[] getInts(String name) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        if (a == null) {
            return null;
        }
        long[] out = new long[a.getIntsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.getInts(i);
        }
        return out;
    }

    public float[] getFloats(String name) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        if (a == null) {
            return null;
        }
        float[] out = new float[a.getFloatsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.getFloats(i);
        }
        return out;
    }

    public TensorProto getTensor(String name) {
        lastRead = name;
        AttributeProto a = byName.get(name);
        return a == null || !a.hasT() ? null : a.getT();
    }

    public AttributeProto get(String name) {
        lastRead = name;
        return byName.get(name);
    }

    /** Every sub-graph of the node (If branches, Loop and Scan bodies), with its attribute name. */
    public static List<Map.Entry<String, GraphProto>> subgraphs(NodeProto node) {
        List<Map.Entry<String, GraphProto>> out = new ArrayList<>();
        for (AttributeProto a : node.getAttributeList()) {
            if (a.hasG()) {
                out.add(Map.entry(a.getName(), a.getG()));
            }
            for (int i = 0; i < a.getGraphsCount(); i++) {
                out.add(Map.entry(a.getName() + "[" + i + "]", a.getGraphs(i)));
            }
        }
        return out;
    }
}
