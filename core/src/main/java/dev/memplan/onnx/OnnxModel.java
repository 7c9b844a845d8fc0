// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import dev.memplan.io.InputFiles;
import dev.memplan.io.OffHeapBytes;
import dev.memplan.onnx.imports.OnnxModelAccess;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A parsed ONNX model.
 *
 * <p>The file is read once into an off-heap buffer of memplan's own and parsed with aliasing:
 * every {@code bytes} field (weights' raw_data and packed payloads) stays a window on that buffer,
 * so the heap holds the graph's structure but never the weight bytes. Fields planning does not
 * declare are kept as protobuf unknown fields; with aliasing their length-delimited payloads are
 * windows on the buffer too, and protobuf's nesting limit bounds how deep sub-graphs can go.
 *
 * <p>The file is not memory-mapped: a mapping faults when the file shrinks under it (a server's
 * {@code cp new.onnx model.onnx}), and the JVM reports such a fault late, as an
 * {@code InternalError} that can surface outside any handler. A copy cannot fault. The file is
 * stamped (size, modification time, identity) when opened: a short read, or a stamp that no longer
 * matches after reading or after the import, is an
 * {@link OnnxFormatException} saying the file changed while it was being read.
 */
public final class OnnxModel {
    static {
        // the importer and memplan's own modules read the message; the exported API names no protobuf type
        OnnxModelAccess.install(OnnxModel::proto, OnnxModel::again, OnnxModel::release);
    }

    /** Protobuf's own ceiling on one message, and ONNX's on a model without external data. */
    static final long MAX_FILE_BYTES = Integer.MAX_VALUE;

    private final String source;
    /** Null once released. */
    private volatile ModelProto proto;
    private final long fileBytes;
    /** The file and its stamp when opened; null for a model read from memory. */
    private final Path file;
    private final InputFiles.Stamp stamp;
    /** The file's bytes the message aliases; null for a model read from memory. */
    private final OffHeapBytes bytes;

    private OnnxModel(String source, ModelProto proto, long fileBytes, Path file, InputFiles.Stamp stamp,
                      OffHeapBytes bytes) {
        this.source = source;
        this.proto = proto;
        this.fileBytes = fileBytes;
        this.file = file;
        this.stamp = stamp;
        this.bytes = bytes;
    }

    /**
     * Reads {@code path}.
     *
     * @param path the {@code .onnx} file
     * @return the model
     * @throws OnnxFormatException when the file is missing, unreadable, not a regular file (a
     *                             directory, FIFO or device: refused at once, never blocked on),
     *                             not protobuf, truncated, has no graph, or changed while read
     */
    public static OnnxModel read(Path path) {
        String source = path.toString();
        try {
            InputFiles.Stamp stamp = InputFiles.Stamp.of(InputFiles.requireRegularFile(path));
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                long size = ch.size();
                if (size > MAX_FILE_BYTES) {
                    throw new OnnxFormatException(source + " is " + size + " bytes; a protobuf ONNX file is at most"
                            + " 2 GiB (larger models keep their weights in external data files)");
                }
                if (size != stamp.size()) {
                    throw changed(source, null);
                }
                OffHeapBytes copy = OffHeapBytes.read(ch, size);
                try {
                    if (copy.buffer().remaining() != size) {
                        throw changed(source, null); // it shrank while being read
                    }
                    ModelProto proto = parse(source, copy.buffer(), size);
                    if (!stamp.isCurrent(path)) {
                        throw changed(source, null);
                    }
                    return new OnnxModel(source, proto, size, path, stamp, copy);
                } catch (RuntimeException e) {
                    copy.close();
                    throw e;
                }
            }
        } catch (NoSuchFileException e) {
            throw new OnnxFormatException(source + " does not exist; give the path of an .onnx file", e);
        } catch (InputFiles.NotRegularFileException e) {
            throw new OnnxFormatException(source + " " + e.getReason(), e);
        } catch (IOException e) {
            throw new OnnxFormatException("cannot read " + source + ": " + e.getMessage(), e);
        }
    }

    /** The error of a file that changed (was rewritten or truncated) while memplan read it. */
    static OnnxFormatException changed(String source, Throwable cause) {
        return new OnnxFormatException(source + ": the file changed while it was being read; read it again once"
                + " it is completely written (copy a new model next to it and rename it into place)", cause);
    }

    /**
     * Checks that the file this model was read from has not changed since it was opened.
     *
     * @throws OnnxFormatException when it changed: what was read from it may be inconsistent
     */
    public void checkUnchanged() {
        if (file != null && !stamp.isCurrent(file)) {
            throw changed(source, null);
        }
    }

    /**
     * What reads this model again later ({@link OnnxModelAccess#again}): its file, refused when it
     * changed since this read, so the caller keeps a path rather than the model's bytes; this model
     * itself when it was read from memory.
     */
    private Supplier<OnnxModel> again() {
        if (file == null) {
            return () -> this;
        }
        Path path = file;
        InputFiles.Stamp first = stamp;
        String name = source;
        return () -> {
            OnnxModel model = read(path);
            if (!model.stamp.equals(first)) {
                throw new OnnxFormatException(name + " changed since memplan first read it; compile the model again"
                        + " to plan it as the file is now");
            }
            return model;
        };
    }

    /**
     * Parses a model held in memory (tests, generated models).
     *
     * @param source a name for the model, used in messages
     * @param bytes the {@code .onnx} file's bytes
     * @return the model
     */
    public static OnnxModel read(String source, byte[] bytes) {
        return new OnnxModel(source, parse(source, ByteBuffer.wrap(bytes), bytes.length), bytes.length, null, null,
                null);
    }

    private static ModelProto parse(String source, ByteBuffer buffer, long size) {
        if (size == 0) {
            throw new OnnxFormatException(source + " is empty; it is not an ONNX model");
        }
        // Through an (unsafely) wrapped ByteString the stream knows the buffer is immutable: only
        // then does aliasing hand out windows on it instead of copies.
        CodedInputStream in = UnsafeByteOperations.unsafeWrap(buffer.duplicate()).newCodedInput();
        in.enableAliasing(true);

        ModelProto proto;
        try {
            proto = ModelProto.parseFrom(in);
            in.checkLastTagWas(0);
        } catch (InvalidProtocolBufferException e) {
            throw new OnnxFormatException(source + " is not a readable ONNX model (" + protobufReason(e)
                    + ")" + WireDiagnosis.locate(buffer.duplicate().rewind())
                    + "; the file is truncated, corrupted or not an ONNX protobuf", e);
        } catch (IOException e) {
            throw new OnnxFormatException("cannot read " + source + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // protobuf reports a few malformed inputs (e.g. negative sizes) as unchecked errors
            throw new OnnxFormatException(source + " is not a readable ONNX model (" + protobufReason(e) + ")"
                    + "; the file is corrupted or not an ONNX protobuf", e);
        }
        if (!proto.hasGraph()) {
            throw new OnnxFormatException(source + " holds no graph (ModelProto.graph, field 7, is missing);"
                    + " it is not an ONNX model or it is empty");
        }
        return proto;
    }

    /**
     * protobuf's reason for refusing the bytes, in words: its messages name its own classes and
     * methods ("Use CodedInputStream.setRecursionLimit() to increase the depth limit"), which a
     * user of memplan cannot call.
     */
    private static String protobufReason(Exception e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.contains("too many levels of nesting")) {
            return "messages nested deeper than protobuf's limit of 100 levels";
        }
        if (m.contains("too large")) {
            return "a message larger than protobuf's size limit";
        }
        if (m.contains("ended unexpectedly")) {
            return "the data ends in the middle of a field";
        }
        if (m.contains("negative size")) {
            return "a field claims a negative size";
        }
        if (m.contains("malformed varint")) {
            return "a malformed variable-length integer";
        }
        if (m.contains("invalid tag")) {
            return "an invalid field tag";
        }
        if (m.contains("wire type")) {
            return "a field with an invalid wire type";
        }
        if (m.contains("end-group tag")) {
            return "a group end tag that matches no group";
        }
        if (m.contains("UTF-8")) {
            return "a string that is not valid UTF-8";
        }
        return "malformed protobuf data";
    }

    /** {@return where the model came from (a path, or the name given to {@link #read(String, byte[])})} */
    public String source() {
        return source;
    }

    /** {@return the size of the model's file (or byte array), in bytes} */
    public long fileBytes() {
        return fileBytes;
    }

    /**
     * The parsed model, for the importer and memplan's own modules ({@code OnnxModelAccess}).
     *
     * @return the parsed model
     */
    ModelProto proto() {
        ModelProto p = proto;
        if (p == null) {
            throw new IllegalStateException(source + " was released after its compile; read the file again");
        }
        return p;
    }

    /**
     * Gives the file's off-heap bytes back to the system now rather than at the next garbage
     * collection: for a compile that is done with the model ({@code OnnxModelAccess}). The caller
     * must hold nothing the message handed out; this model refuses every later read.
     */
    private void release() {
        proto = null;
        if (bytes != null) {
            bytes.close();
        }
    }

    /** {@return the model's {@code ir_version}} */
    public long irVersion() {
        return proto().getIrVersion();
    }

    /** {@return the producer name and version the model declares} */
    public String producer() {
        ModelProto p = proto();
        return (p.getProducerName() + " " + p.getProducerVersion()).trim();
    }

    /** {@return opset versions by domain ({@code ""} is the default ONNX domain)} */
    public Map<String, Long> opsets() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (OperatorSetIdProto op : proto().getOpsetImportList()) {
            String domain = op.getDomain().equals("ai.onnx") ? "" : op.getDomain();
            out.merge(domain, op.getVersion(), Math::max);
        }
        return Collections.unmodifiableMap(out);
    }

    /** {@return the default-domain opset version; 1 when the model declares none} */
    public long defaultOpset() {
        return opsets().getOrDefault("", 1L);
    }
}
