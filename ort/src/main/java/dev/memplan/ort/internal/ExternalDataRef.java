// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.onnx.proto.OnnxProto.StringStringEntryProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;

/**
 * Where a tensor's external data lies, as its {@code external_data} entries say: the file its
 * location names, the offset, and the length (-1 when not given: to the file's end).
 */
record ExternalDataRef(String location, long offset, long length) {
    /** Reads an offset's or a length's text; the caller says what a bad one means. */
    @FunctionalInterface
    interface Numbers {
        long parse(String key, String value);
    }

    /** {@return the entries of {@code t}; a location not given is null} */
    static ExternalDataRef of(TensorProto t, Numbers numbers) {
        String location = null;
        long offset = 0;
        long length = -1;
        for (StringStringEntryProto e : t.getExternalDataList()) {
            switch (e.getKey()) {
                case "location" -> location = e.getValue();
                case "offset" -> offset = numbers.parse("offset", e.getValue());
                case "length" -> length = numbers.parse("length", e.getValue());
                default -> {
                    // checksum and other keys: ORT does not open anything with them
                }
            }
        }
        return new ExternalDataRef(location, offset, length);
    }
}
