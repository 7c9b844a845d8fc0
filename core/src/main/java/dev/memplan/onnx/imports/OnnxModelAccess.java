// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The protobuf message behind an {@link OnnxModel}, for the importer and memplan's own modules: the
 * exported {@code OnnxModel} names no protobuf type; it lends its message when its class
 * initializes.
 */
public final class OnnxModelAccess {
    private static volatile Function<OnnxModel, ModelProto> proto;
    private static volatile Function<OnnxModel, Supplier<OnnxModel>> again;

    private OnnxModelAccess() {
    }

    /**
     * Installs the access; {@code OnnxModel}'s static initializer calls it, once.
     *
     * @param lent   what reads a model's message
     * @param reader what makes a model's {@link #again} supplier
     * @throws IllegalStateException when an access is installed already
     */
    public static synchronized void install(Function<OnnxModel, ModelProto> lent,
                                            Function<OnnxModel, Supplier<OnnxModel>> reader) {
        if (proto != null) {
            throw new IllegalStateException("OnnxModel's access is installed already");
        }
        proto = lent;
        again = reader;
    }

    /**
     * What reads {@code model} again when an import needs it later (a symbol split): a model read
     * from a file is read from it again and refused if the file changed, so that only its path is
     * kept, not its bytes; a model read from memory is kept.
     *
     * @param model the model
     * @return the supplier of the same model
     */
    public static Supplier<OnnxModel> again(OnnxModel model) {
        return again.apply(model);
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
