// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds where a model file stops being valid protobuf, to name the model element at fault
 * ({@code graph.node[12].attribute[0]}) when protobuf itself only says "truncated". Walks the wire
 * format with protobuf's {@link CodedInputStream}, naming fields from the generated classes'
 * descriptors; an explicit stack of messages (no recursion), every byte read at most once.
 */
final class WireDiagnosis {
    /** Deeper messages are skipped whole: protobuf's own parser stops at 100 as well. */
    private static final int MAX_DEPTH = 100;

    private WireDiagnosis() {
    }

    /** One message being walked: its type, the limit to restore after it, its path, field counts. */
    private static final class Frame {
        final Descriptor type;
        final int outerLimit;
        final String path;
        final Map<Integer, Integer> counts = new HashMap<>();

        Frame(Descriptor type, int outerLimit, String path) {
            this.type = type;
            this.outerLimit = outerLimit;
            this.path = path;
        }
    }

    /** {@code " at <element>, byte N: <what>"}, or {@code ""} when the walk finds nothing wrong. */
    static String locate(ByteBuffer buf) {
        try {
            return walk(buf);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static String walk(ByteBuffer buf) throws IOException {
        int base = buf.position();
        CodedInputStream in = CodedInputStream.newInstance(buf.duplicate());
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(ModelProto.getDescriptor(), in.pushLimit(buf.remaining()), "model"));
        while (!stack.isEmpty()) {
            Frame f = stack.peek();
            if (in.isAtEnd()) {
                in.popLimit(f.outerLimit);
                stack.pop();
                continue;
            }
            int tagStart = base + in.getTotalBytesRead();
            long tag;
            try {
                tag = in.readRawVarint64();
            } catch (InvalidProtocolBufferException e) {
                return at(f.path, tagStart, "a field tag runs past the end of " + f.path);
            }
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            String cutOff = "field " + field + " of " + f.path + " is cut off";
            try {
                switch (wire) {
                    case WireFormat.WIRETYPE_VARINT -> in.readRawVarint64();
                    case WireFormat.WIRETYPE_FIXED64 -> in.skipRawBytes(8);
                    case WireFormat.WIRETYPE_FIXED32 -> in.skipRawBytes(4);
                    case WireFormat.WIRETYPE_LENGTH_DELIMITED -> {
                        String wrong = enter(in, f, field, stack);
                        if (wrong != null) {
                            return at(f.path, tagStart, wrong);
                        }
                    }
                    default -> {
                        return at(f.path, tagStart, f.path + " has field " + field + " with wire type " + wire
                                + ", which ONNX never uses");
                    }
                }
            } catch (InvalidProtocolBufferException e) {
                return at(f.path, tagStart, cutOff);
            }
        }
        return "";
    }

    /**
     * Reads a length-delimited field of {@code f}: enters it when the descriptor says it is a
     * message, skips it otherwise. Returns what is wrong with its length, or null.
     */
    private static String enter(CodedInputStream in, Frame f, int field, Deque<Frame> stack) throws IOException {
        long len;
        try {
            len = in.readRawVarint64();
        } catch (InvalidProtocolBufferException e) {
            return "the length of field " + field + " of " + f.path + " is cut off";
        }
        FieldDescriptor child = f.type.findFieldByNumber(field);
        boolean message = child != null && child.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
        String name = message ? child.getName() : "field " + field;
        int remaining = in.getBytesUntilLimit();
        if (len < 0 || len > remaining) {
            return f.path + "." + name + " declares " + len + " bytes but only " + remaining
                    + " remain in its enclosing element";
        }
        if (message && stack.size() < MAX_DEPTH) {
            int index = f.counts.merge(field, 1, Integer::sum) - 1;
            int outer = in.pushLimit((int) len);
            stack.push(new Frame(child.getMessageType(), outer, f.path + "." + name + "[" + index + "]"));
        } else {
            in.skipRawBytes((int) len);
        }
        return null;
    }

    private static String at(String path, int offset, String what) {
        return " at " + path + ", byte " + offset + ": " + what;
    }
}
