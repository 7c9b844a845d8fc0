// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import dev.memplan.InvalidGraphException;

/**
 * A graph file that cannot be read: malformed JSON, an unknown field, a duplicate name, an unknown
 * data type, a bad dim or a reference to an undeclared value. The message starts with where the
 * problem is, as a line and column and a JSON path such as {@code $.nodes[3].inputs[1]}.
 */
public class GraphFileException extends InvalidGraphException {
    private static final long serialVersionUID = 1L;

    /** 1-based line of the problem, 0 when unknown. */
    private final int line;
    /** 1-based column of the problem, 0 when unknown. */
    private final int column;
    /** JSON path of the element at fault. */
    private final String jsonPath;
    /** What is wrong, without the location. */
    private final String problem;

    GraphFileException(int line, int column, String jsonPath, String problem, Throwable cause) {
        super("line " + line + ", column " + column + " (" + jsonPath + "): " + problem, cause);
        this.line = line;
        this.column = column;
        this.jsonPath = jsonPath;
        this.problem = problem;
    }

    /** {@return the 1-based line of the offending token} */
    public int line() {
        return line;
    }

    /** {@return the 1-based column of the offending token} */
    public int column() {
        return column;
    }

    /** {@return where in the document, e.g. {@code $.nodes[3].inputs[1]}} */
    public String jsonPath() {
        return jsonPath;
    }

    /** {@return what is wrong and what to do, without the location} */
    public String problem() {
        return problem;
    }
}
