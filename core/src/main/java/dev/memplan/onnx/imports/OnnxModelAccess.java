// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.function.Function;

/**
 * The protobuf message behind an {@link OnnxModel}, for the importer and memplan's own modules: the
 * exported {@code OnnxModel} names no protobuf type; it lends its message when its class
 * initializes.
 */
public final class OnnxModelAccess {
    private static volatile Function<OnnxModel, ModelProto> proto;

    private OnnxModelAccess() {
    }

    /**
     * Installs the access; {@code OnnxModel}'s static initializer calls it, once.
     *
     * @param lent what reads a model's message
     * @throws IllegalStateException when an access is installed already
     */
    public static synchronized void install(Function<OnnxModel, ModelProto> lent) {
        if (proto != null) {
            throw new IllegalStateException("OnnxModel's access is installed already");
        }
        proto = lent;
    }

    /**
     * {@return the parsed model (a model exists, so its class has installed the access)}
     *
     * @param model the model
     */
    public static ModelProto proto(OnnxModel model) {
        return proto.apply(model);
    }
}
