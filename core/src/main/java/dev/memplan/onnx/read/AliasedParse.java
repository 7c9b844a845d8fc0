// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.read;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnsafeByteOperations;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Parses a model with aliasing, so that weight bytes stay windows on the buffer instead of copies.
 * Here, not in memplan-ort, because protobuf's runtime is relocated inside this module's jar: only
 * its own classes may name it.
 */
public final class AliasedParse {
    private AliasedParse() {
    }

    /**
     * Parses {@code buffer} as a {@code ModelProto}, aliasing its bytes.
     *
     * @param buffer the file's bytes, left unchanged while the model lives
     * @return the model
     * @throws IOException when the bytes are not a readable model
     */
    public static ModelProto model(ByteBuffer buffer) throws IOException {
        // through an (unsafely) wrapped ByteString the stream knows the buffer is immutable: only
        // then does aliasing hand out windows on it instead of copies
        CodedInputStream in = UnsafeByteOperations.unsafeWrap(buffer).newCodedInput();
        in.enableAliasing(true);
        return ModelProto.parseFrom(in);
    }
}
