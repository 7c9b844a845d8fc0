// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every ONNX {@code TensorProto.DataType}, with the ONNX enum code and the bits one element takes.
 *
 * <p>Sub-byte types (4-bit and 2-bit) pack: a tensor of {@code n} elements takes
 * {@code ceil(n * bits / 8)} bytes. {@link #STRING} and {@link #UNDEFINED} have no fixed width, so
 * their sizes are unknown and plans that need them are deferred.
 */
public enum DataType {
    /** No element type (ONNX UNDEFINED): no fixed width, sizes unknown. ONNX code 0. */
    UNDEFINED(0, 0, "undefined"),
    /** float32: 32 bits per element. ONNX code 1. */
    FLOAT32(1, 32, "float32"),
    /** uint8: 8 bits per element. ONNX code 2. */
    UINT8(2, 8, "uint8"),
    /** int8: 8 bits per element. ONNX code 3. */
    INT8(3, 8, "int8"),
    /** uint16: 16 bits per element. ONNX code 4. */
    UINT16(4, 16, "uint16"),
    /** int16: 16 bits per element. ONNX code 5. */
    INT16(5, 16, "int16"),
    /** int32: 32 bits per element. ONNX code 6. */
    INT32(6, 32, "int32"),
    /** int64: 64 bits per element. ONNX code 7. */
    INT64(7, 64, "int64"),
    /** Variable-length strings: no fixed width, sizes unknown. ONNX code 8. */
    STRING(8, 0, "string"),
    /** Boolean, one byte per element. ONNX code 9. */
    BOOL(9, 8, "bool"),
    /** float16: 16 bits per element. ONNX code 10. */
    FLOAT16(10, 16, "float16"),
    /** float64: 64 bits per element. ONNX code 11. */
    FLOAT64(11, 64, "float64"),
    /** uint32: 32 bits per element. ONNX code 12. */
    UINT32(12, 32, "uint32"),
    /** uint64: 64 bits per element. ONNX code 13. */
    UINT64(13, 64, "uint64"),
    /** Complex of two 32-bit floats. ONNX code 14. */
    COMPLEX64(14, 64, "complex64"),
    /** Complex of two 64-bit floats. ONNX code 15. */
    COMPLEX128(15, 128, "complex128"),
    /** Brain floating point, 16 bits. ONNX code 16. */
    BFLOAT16(16, 16, "bfloat16"),
    /** float8e4m3fn: 8 bits per element. ONNX code 17. */
    FLOAT8E4M3FN(17, 8, "float8e4m3fn"),
    /** float8e4m3fnuz: 8 bits per element. ONNX code 18. */
    FLOAT8E4M3FNUZ(18, 8, "float8e4m3fnuz"),
    /** float8e5m2: 8 bits per element. ONNX code 19. */
    FLOAT8E5M2(19, 8, "float8e5m2"),
    /** float8e5m2fnuz: 8 bits per element. ONNX code 20. */
    FLOAT8E5M2FNUZ(20, 8, "float8e5m2fnuz"),
    /** uint4: 4 bits per element. ONNX code 21. */
    UINT4(21, 4, "uint4"),
    /** int4: 4 bits per element. ONNX code 22. */
    INT4(22, 4, "int4"),
    /** float4e2m1: 4 bits per element. ONNX code 23. */
    FLOAT4E2M1(23, 4, "float4e2m1"),
    /** float8e8m0: 8 bits per element. ONNX code 24. */
    FLOAT8E8M0(24, 8, "float8e8m0"),
    /** uint2: 2 bits per element. ONNX code 25. */
    UINT2(25, 2, "uint2"),
    /** int2: 2 bits per element. ONNX code 26. */
    INT2(26, 2, "int2");

    private static final DataType[] BY_CODE = new DataType[27];
    private static final Map<String, DataType> BY_NAME = new HashMap<>();

    static {
        for (DataType t : values()) {
            BY_CODE[t.onnxCode] = t;
            BY_NAME.put(t.jsonName, t);
        }
        // ONNX's own spellings of the two commonest types.
        BY_NAME.put("float", FLOAT32);
        BY_NAME.put("double", FLOAT64);
    }

    private final int onnxCode;
    private final int bits;
    private final String jsonName;

    DataType(int onnxCode, int bits, String jsonName) {
        this.onnxCode = onnxCode;
        this.bits = bits;
        this.jsonName = jsonName;
    }

    /** {@return the {@code TensorProto.DataType} enum value} */
    public int onnxCode() {
        return onnxCode;
    }

    /** {@return bits per element; 0 when elements have no fixed width (string, undefined)} */
    public int bits() {
        return bits;
    }

    /** {@return whether a tensor of this type has a size computable from its shape} */
    public boolean hasFixedWidth() {
        return bits > 0;
    }

    /** {@return the lower-case name used by the JSON graph format, e.g. {@code float32}} */
    public String jsonName() {
        return jsonName;
    }

    /**
     * {@return the type for an ONNX enum code}
     *
     * @param code the ONNX {@code TensorProto.DataType} code
     */
    public static DataType fromOnnxCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown ONNX data type code " + code
                    + "; known codes are 0 to " + (BY_CODE.length - 1));
        }
        return BY_CODE[code];
    }

    /**
     * {@return the type for a JSON name (case-insensitive); {@code float} and {@code double} are aliases}
     *
     * @param name the lower-case name, e.g. {@code float32}
     */
    public static DataType fromName(String name) {
        DataType t = BY_NAME.get(name.toLowerCase(Locale.ROOT));
        if (t == null) {
            throw new IllegalArgumentException("unknown data type '" + name
                    + "'; use one of " + String.join(", ", BY_NAME.keySet().stream().sorted().toList()));
        }
        return t;
    }

    @Override
    public String toString() {
        return jsonName;
    }
}
