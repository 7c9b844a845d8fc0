// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.function.Consumer;
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
    private static volatile Consumer<OnnxModel> release;

    private OnnxModelAccess() {
    }

    /**
     * Installs the access; {@code OnnxModel}'s static initializer calls it, once.
     *
     * @param lent   what reads a model's message
     * @param reader what makes a model's {@link #again} supplier
     * @param freer  what {@link #release}s a model
     * @throws IllegalStateException when an access is installed already
     */
    public static synchronized void install(Function<OnnxModel, ModelProto> lent,
                                            Function<OnnxModel, Supplier<OnnxModel>> reader,
                                            Consumer<OnnxModel> freer) {
        if (proto != null) {
            throw new IllegalStateException("OnnxModel's access is installed already");
        }
        proto = lent;
        again = reader;
        release = freer;
    }

    /**
     * Gives a model's off-heap copy of its file back to the system now, not at the next garbage
     * collection, which in a server that allocates little may be long after: for a compile done
     * with a model it read itself. Nothing the model's message handed out may be read afterwards,
     * and the model refuses every later read. Nothing happens to a model read from memory.
     *
     * @param model the model, read by the caller and reachable by no one else
     */
    public static void release(OnnxModel model) {
        release.accept(model);
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
     * Reads a model again for a later import and gives its copy back when {@code use} returns: a
     * model read again from its file is held by no one else. {@code first}, the model kept in
     * memory, is never released.
     *
     * @param again what reads the model again ({@link #again})
     * @param first the model {@code again} was made from
     * @param use   what imports it
     * @param <T>   what the import makes
     * @return what {@code use} returned
     */
    public static <T> T withModelAgain(Supplier<OnnxModel> again, OnnxModel first, Function<OnnxModel, T> use) {
        OnnxModel read = again.get();
        try {
            return use.apply(read);
        } finally {
            if (read != first) {
                release(read);
            }
        }
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
