// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.read;

import com.google.protobuf.ByteString;
import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a TensorProto (initializer or Constant) into a {@link TensorInfo}: type and static shape,
 * and the values when the tensor is small enough for shape inference to use them. Weight payloads
 * of larger tensors are never read.
 */
public final class TensorDecoder {
    private TensorDecoder() {
    }

    public static DataType dataType(int code, String where) {
        if (code < 0 || code > 26) {
            throw new OnnxFormatException(where + " has data type code " + code
                    + ", which is not an ONNX TensorProto.DataType (0 to 26)");
        }
        return DataType.fromOnnxCode(code);
    }

    public static TensorInfo decode(TensorProto t, String where) {
        DataType type = dataType(t.getDataType(), where);
        List<Dim> shape = new ArrayList<>(t.getDimsCount());
        long numel = 1;
        for (int i = 0; i < t.getDimsCount(); i++) {
            long d = t.getDims(i);
            if (d < 0) {
                throw new OnnxFormatException(where + " has dim " + i + " = " + d + "; tensor dims must be >= 0");
            }
            shape.add(Dim.of(d));
            numel = multiplyOrMax(numel, d);
        }
        if (numel > TensorInfo.MAX_TRACKED_ELEMENTS || t.getDataLocation() == 1) {
            return TensorInfo.of(type, shape);
        }
        int n = (int) numel;
        try {
            return switch (type) {
                case INT64, INT32, INT16, INT8, UINT8, UINT16, UINT32, UINT64, BOOL -> {
                    long[] v = integers(t, type, n);
                    if (v == null) {
                        yield TensorInfo.of(type, shape);
                    }
                    SymInt[] ints = new SymInt[n];
                    for (int i = 0; i < n; i++) {
                        ints[i] = SymInt.of(v[i]);
                    }
                    yield new TensorInfo(type, shape, ints, null);
                }
                case FLOAT32, FLOAT64 -> new TensorInfo(type, shape, null, floats(t, type, n));
                default -> TensorInfo.of(type, shape);
            };
        } catch (IndexOutOfBoundsException | BufferUnderflowException e) {
            return TensorInfo.of(type, shape); // payload shorter than the dims say: values unknown
        }
    }

    static long multiplyOrMax(long a, long b) {
        long r = a * b;
        if (a != 0 && (r / a != b || r < 0)) {
            return Long.MAX_VALUE;
        }
        return r;
    }

    private static long[] integers(TensorProto t, DataType type, int n) {
        long[] out = new long[n];
        if (t.hasRawData()) {
            ByteBuffer b = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            int width = type.bits() / 8;
            if (b.remaining() != (long) n * width) {
                return null;
            }
            for (int i = 0; i < n; i++) {
                out[i] = switch (type) {
                    case INT64, UINT64 -> b.getLong();
                    case INT32 -> b.getInt();
                    case UINT32 -> b.getInt() & 0xffffffffL;
                    case INT16 -> b.getShort();
                    case UINT16 -> b.getShort() & 0xffff;
                    case INT8 -> b.get();
                    default -> b.get() & 0xff;
                };
            }
            return out;
        }
        ByteString packed = switch (type) {
            case INT64 -> t.getInt64Data();
            case UINT32, UINT64 -> t.getUint64Data();
            default -> t.getInt32Data();
        };
        return varints(packed, n, type != DataType.INT64 && type != DataType.UINT64 && type != DataType.UINT32);
    }

    private static long[] varints(ByteString packed, int n, boolean int32) {
        long[] out = new long[n];
        ByteBuffer b = packed.asReadOnlyByteBuffer();
        for (int i = 0; i < n; i++) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                if (shift >= 64 || !b.hasRemaining()) {
                    return null;
                }
                byte x = b.get();
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    break;
                }
            }
            out[i] = int32 ? (int) v : v;
        }
        return b.hasRemaining() ? null : out;
    }

    private static double[] floats(TensorProto t, DataType type, int n) {
        ByteBuffer b;
        if (t.hasRawData()) {
            b = t.getRawData().asReadOnlyByteBuffer();
        } else {
            b = (type == DataType.FLOAT32 ? t.getFloatData() : t.getDoubleData()).asReadOnlyByteBuffer();
        }
        b.order(ByteOrder.LITTLE_ENDIAN);
        int width = type == DataType.FLOAT32 ? 4 : 8;
        if (b.remaining() != (long) n * width) {
            return null;
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = type == DataType.FLOAT32 ? b.getFloat() : b.getDouble();
        }
        return out;
    }
}
