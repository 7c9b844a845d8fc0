// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.shaded.protobuf.UnsafeByteOperations;
import dev.memplan.MemplanException;
import dev.memplan.io.TerminalText;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.symbols.TensorInfo;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The weights of the graph ORT saves, kept in a file beside it. memplan reads the saved graph for its
 * nodes, shapes and small constants; the weights (130 MB of a BGE-small encoder) would only be read,
 * parsed and dropped. So ORT writes every initializer of at least {@link #MIN_EXTERNAL_BYTES} into
 * {@link #of}'s file, and memplan reads one back only where a kernel probe needs its values.
 *
 * <p>The threshold keeps inline every tensor whose values the importer decodes
 * ({@link TensorInfo#MAX_TRACKED_ELEMENTS} elements of at most eight bytes).
 */
final class SavedWeights {
    /** ORT's session option naming the saved graph's weight file, relative to the saved graph. */
    static final String FILE_OPTION = "session.optimized_model_external_initializers_file_name";
    /** ORT's session option: initializers of at least this many bytes go to the weight file. */
    static final String MIN_SIZE_OPTION = "session.optimized_model_external_initializers_min_size_in_bytes";
    static final long MIN_EXTERNAL_BYTES = 8L * TensorInfo.MAX_TRACKED_ELEMENTS + 1;
    /** ONNX's TensorProto.DataLocation.EXTERNAL. */
    private static final int EXTERNAL = 1;

    private SavedWeights() {
    }

    /** {@return the weight file ORT writes beside the graph it saves to {@code saved}} */
    static Path of(Path saved) {
        return saved.resolveSibling(fileName(saved));
    }

    /** {@return the weight file's name, as the saved graph's tensors give their location} */
    static String fileName(Path saved) {
        return saved.getFileName() + ".data";
    }

    /**
     * {@return {@code models} with every initializer ORT moved to the weight file of {@code saved}
     * read back inline}: kernel probes carry their constant inputs' data to the child that runs them.
     *
     * @throws MemplanException when a tensor points outside the weight file
     */
    static List<ModelProto> inline(List<ModelProto> models, Path saved) {
        List<ModelProto> out = new ArrayList<>(models.size());
        try (RandomAccessFile data = new RandomAccessFile(of(saved).toFile(), "r")) {
            for (ModelProto model : models) {
                out.add(needsData(model.getGraph())
                        ? model.toBuilder().setGraph(inline(model.getGraph(), data, fileName(saved))).build() : model);
            }
        } catch (IOException e) {
            if (models.stream().noneMatch(m -> needsData(m.getGraph()))) {
                return models; // no weight file, and nothing to read from it
            }
            throw new MemplanException("cannot read the weights ONNX Runtime saved beside its graph: " + e.getMessage()
                    + "; check the free space of the temporary directory (java.io.tmpdir)", e);
        }
        return out;
    }

    private static boolean needsData(GraphProto g) {
        return g.getInitializerList().stream().anyMatch(t -> t.getDataLocation() == EXTERNAL);
    }

    private static GraphProto inline(GraphProto g, RandomAccessFile data, String fileName) throws IOException {
        GraphProto.Builder b = g.toBuilder();
        for (int i = 0; i < b.getInitializerCount(); i++) {
            TensorProto t = b.getInitializer(i);
            if (t.getDataLocation() == EXTERNAL) {
                b.setInitializer(i, inline(t, data, fileName));
            }
        }
        return b.build();
    }

    private static TensorProto inline(TensorProto t, RandomAccessFile data, String fileName) throws IOException {
        ExternalDataRef ref = ExternalDataRef.of(t, (key, value) -> parse(value));
        String location = ref.location();
        long offset = ref.offset();
        long length = ref.length();
        if (!fileName.equals(location) || length < 0 || offset < 0 || offset > data.length() - length
                || length > Integer.MAX_VALUE) {
            throw new MemplanException("the graph ONNX Runtime saved puts tensor '" + TerminalText.escape(t.getName())
                    + "' outside its weight file; compile the model again, or use the memplan runtime for it");
        }
        byte[] bytes = new byte[(int) length];
        data.seek(offset);
        data.readFully(bytes);
        return t.toBuilder().clearExternalData().clearDataLocation().setRawData(UnsafeByteOperations.unsafeWrap(bytes)).build();
    }

    private static long parse(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
