package dev.memplan.cli;

import dev.memplan.MemplanException;
import dev.memplan.json.GraphFile;
import dev.memplan.json.GraphJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a graph file of any supported type, chosen by its extension. The one place to add a
 * format (an {@code .onnx} importer goes here).
 */
final class GraphLoader {
    private GraphLoader() {
    }

    /**
     * Reads {@code file}.
     *
     * @throws MemplanException for an unsupported file type or a file that is not a valid graph
     * @throws IOException      when the file cannot be read
     */
    static GraphFile load(Path file) throws IOException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".json")) {
            return GraphJson.read(file);
        }
        int dot = name.lastIndexOf('.');
        String type = dot < 0 ? "a file without an extension" : "'" + name.substring(dot) + "' files";
        throw new MemplanException("unsupported file type: memplan cannot read " + type
                + "; give it a .json graph file");
    }
}
