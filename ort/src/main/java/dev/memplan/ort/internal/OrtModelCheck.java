// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.FunctionProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.SparseTensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.read.AliasedParse;
import java.io.IOException;
import dev.memplan.io.OffHeapBytes;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * What memplan refuses before ONNX Runtime reads a model, since ORT reads more of it than memplan
 * does (memplan's own runtime never opens external data: it counts weights from their dims).
 * <ul>
 * <li><b>External data outside the model's folder.</b> ORT opens each tensor's
 * {@code external_data} location and reads it as weights: a model could make it read
 * {@code /etc/passwd}, a device ({@code /dev/zero}) or {@code /proc}, and its error would tell
 * whether the file exists and how long it is. Every tensor's location (initializers, sparse ones,
 * Constant and other attributes, in every subgraph and function) must be a relative path inside
 * the model's folder, without {@code ..}, that stays inside it once links are followed, naming a
 * regular file that holds {@code offset + length} bytes. The check names the tensor; a location
 * outside the folder is refused without looking at it.</li>
 * <li><b>Deep If nesting.</b> ONNX Runtime 1.23 takes time exponential in subgraph nesting to load
 * a model (depth 12: 0.6 s, 16: 8 s, 20: over 2 minutes; 1.29 loads depth 20 in 0.04 s), so the
 * ort runtime accepts at most {@value #MAX_NESTING} levels of nested subgraphs. The prediction
 * itself is linear in the depth.</li>
 * </ul>
 * A check, not a sandbox: a process that can write the model's folder while ORT loads the model
 * can still swap a file in.
 */
final class OrtModelCheck {
    /** Subgraphs inside subgraphs (If branches, Loop and Scan bodies) the ort runtime hands to ORT. */
    static final int MAX_NESTING = 12;
    /** ONNX's TensorProto.DataLocation.EXTERNAL. */
    private static final int EXTERNAL = 1;

    private final Path folder;
    /** Whether a tensor checked so far keeps its data in another file. */
    private boolean externalData;

    private OrtModelCheck(Path folder) {
        this.folder = folder;
    }

    /**
     * A model that passed the check, as read for it.
     *
     * @param model        the parsed model (weights aliased, not copied)
     * @param externalData whether a tensor keeps its data in another file of the model's folder
     * @param bytes        the file's bytes, mapped read-only (the model aliases them)
     * @param crc          their CRC-32C before the check read them
     * @param owner        the mapping: closing unmaps it, after which neither {@code model} nor
     *                     {@code bytes} may be read
     */
    record Checked(ModelProto model, boolean externalData, ByteBuffer bytes, long crc, OffHeapBytes owner)
            implements AutoCloseable {
        /**
         * {@return the bytes' CRC-32C now, the same as before the check}: the file was not changed
         * while memplan checked it, so what the child reads with this CRC is what was checked
         *
         * @throws MemplanException when the file changed or shrank since it was mapped
         */
        long unchangedCrc(Path model) {
            try {
                if (ModelHandOver.crc(bytes) != crc) {
                    throw changedWhileRead(model, null);
                }
                return crc;
            } catch (InternalError e) { // the JDK raises it at a later point than the fault: keep all inside
                throw changedWhileRead(model, e);
            }
        }

        @Override
        public void close() {
            owner.close();
        }
    }

    /**
     * The refusal of a model file that changed while memplan read it: its mapping read other bytes
     * than before, or faulted past the file's new end (the JDK's {@link InternalError}).
     */
    static MemplanException changedWhileRead(Path model, InternalError fault) {
        return new MemplanException(model + " changed while memplan read it; compile the model again once it is"
                + " completely written", fault);
    }

    /**
     * Checks {@code model} (a file memplan has read already) before ONNX Runtime loads it.
     *
     * @return the model as read, for whatever else memplan does with it before ORT loads it
     * @throws MemplanException naming the tensor whose external data is refused, or the nesting depth
     */
    static Checked beforeOrtReads(Path model) {
        Path absolute = model.toAbsolutePath().normalize();
        Path folder = absolute.getParent();
        OrtModelCheck check = new OrtModelCheck(folder);
        OffHeapBytes owner = map(model);
        try {
            ByteBuffer bytes = owner.buffer();
            long crc = ModelHandOver.crc(bytes);
            ModelProto proto;
            try {
                proto = AliasedParse.model(bytes.duplicate());
            } catch (IOException e) {
                throw new MemplanException("cannot read " + model + " again before ONNX Runtime loads it: "
                        + e.getMessage() + "; check that the file is still there and readable", e);
            }
            check.graph(proto.getGraph(), 0);
            for (FunctionProto f : proto.getFunctionsList()) {
                check.nodes(f.getNodeList(), 0);
            }
            return new Checked(proto, check.externalData, bytes.asReadOnlyBuffer(), crc, owner);
        } catch (InternalError e) {
            owner.close();
            throw changedWhileRead(model, e);
        } catch (RuntimeException e) {
            owner.close();
            throw e;
        }
    }

    /**
     * Maps the file: parsed with aliasing, the weights are never copied, and no fresh memory is
     * faulted in (reading bge-small's 130 MB into a buffer took 0.5 s on the ort compile's path).
     * Its CRC before and after the check proves it unchanged meanwhile ({@link Checked#unchangedCrc}).
     */
    private static OffHeapBytes map(Path model) {
        try (FileChannel ch = FileChannel.open(model, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) {
                throw new MemplanException(model + " is " + size + " bytes; a protobuf ONNX file is at most 2 GiB");
            }
            return OffHeapBytes.map(ch, size);
        } catch (IOException e) {
            throw new MemplanException("cannot read " + model + " again before ONNX Runtime loads it: " + e.getMessage()
                    + "; check that the file is still there and readable", e);
        }
    }

    private void graph(GraphProto g, int depth) {
        if (depth > MAX_NESTING) {
            throw new MemplanException("the model nests subgraphs (If branches, Loop or Scan bodies) more than "
                    + MAX_NESTING + " deep; ONNX Runtime 1.23's load time doubles with each level, so the ort runtime"
                    + " stops at " + MAX_NESTING + ": flatten the model's nesting, or use the memplan runtime");
        }
        for (TensorProto t : g.getInitializerList()) {
            tensor(t, t.getName());
        }
        for (SparseTensorProto s : g.getSparseInitializerList()) {
            sparse(s);
        }
        nodes(g.getNodeList(), depth);
    }

    private void nodes(List<NodeProto> nodes, int depth) {
        for (NodeProto n : nodes) {
            for (AttributeProto a : n.getAttributeList()) {
                String owner = (n.getName().isEmpty() ? n.getOpType() : n.getName()) + "." + a.getName();
                if (a.hasT()) {
                    tensor(a.getT(), a.getT().getName().isEmpty() ? owner : a.getT().getName());
                }
                for (TensorProto t : a.getTensorsList()) {
                    tensor(t, t.getName().isEmpty() ? owner : t.getName());
                }
                if (a.hasSparseTensor()) {
                    sparse(a.getSparseTensor());
                }
                a.getSparseTensorsList().forEach(this::sparse);
                if (a.hasG()) {
                    graph(a.getG(), depth + 1);
                }
                for (GraphProto g : a.getGraphsList()) {
                    graph(g, depth + 1);
                }
            }
        }
    }

    private void sparse(SparseTensorProto s) {
        if (s.hasValues()) {
            tensor(s.getValues(), s.getValues().getName());
        }
        if (s.hasIndices()) {
            tensor(s.getIndices(), s.getIndices().getName());
        }
    }

    private void tensor(TensorProto t, String name) {
        if (t.getDataLocation() != EXTERNAL && t.getExternalDataCount() == 0) {
            return;
        }
        externalData = true;
        ExternalDataRef ref = ExternalDataRef.of(t, (key, value) -> number(name, key, value));
        String location = ref.location();
        long offset = ref.offset();
        long length = ref.length();
        if (location == null || location.isEmpty()) {
            throw refused(name, "", "names no file (its location is empty)");
        }
        Path file = inside(name, location);
        long size;
        try {
            if (!Files.isRegularFile(file)) { // follows the link: already known to stay inside
                throw refused(name, location, Files.exists(file, LinkOption.NOFOLLOW_LINKS)
                        ? "is not a regular file" : "does not exist in the model's folder");
            }
            size = Files.size(file);
        } catch (IOException e) {
            throw refused(name, location, "cannot be read (" + e.getMessage() + ")");
        }
        long end = length < 0 ? offset : offset + length;
        if (end < 0 || end > size) {
            throw refused(name, location, "is " + size + " bytes, and the tensor reads from byte " + offset
                    + (length < 0 ? "" : " to byte " + end));
        }
    }

    /** The file {@code location} names, when it is a relative path that stays inside the model's folder. */
    private Path inside(String name, String location) {
        Path relative;
        try {
            relative = Path.of(location);
        } catch (InvalidPathException e) {
            throw refused(name, location, "is not a file name");
        }
        if (relative.isAbsolute() || location.startsWith("/") || location.startsWith("\\")) {
            throw refused(name, location, "is an absolute path");
        }
        for (Path part : relative) {
            if (part.toString().equals("..")) {
                throw refused(name, location, "leaves the model's folder (..)");
            }
        }
        Path file = folder.resolve(relative).normalize();
        try {
            Path realFolder = folder.toRealPath();
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !file.toRealPath().startsWith(realFolder)) {
                throw refused(name, location, "is a link to a file outside the model's folder");
            }
        } catch (IOException e) {
            throw refused(name, location, "cannot be resolved (" + e.getMessage() + ")");
        }
        return file;
    }

    private long number(String name, String key, String value) {
        try {
            long n = Long.parseLong(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw refused(name, value, "is not a valid " + key + " (a byte count)");
    }

    private MemplanException refused(String tensor, String location, String why) {
        return new MemplanException("the external data of tensor '" + tensor + "' (\"" + location + "\") " + why
                + "; the ort runtime refuses it before ONNX Runtime reads it as weights: keep external data in files"
                + " inside the model's folder, or use the memplan runtime (which never reads external data)");
    }
}
