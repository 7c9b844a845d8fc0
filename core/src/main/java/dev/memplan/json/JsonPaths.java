// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import com.fasterxml.jackson.core.JsonStreamContext;
import java.util.ArrayDeque;
import java.util.regex.Pattern;

/** JSON paths such as {@code $.nodes[3].inputs[1]}, for error messages. */
final class JsonPaths {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private JsonPaths() {
    }

    /** The path of the token the parser is on, from its read context (walked as a loop). */
    static String of(JsonStreamContext context) {
        ArrayDeque<String> parts = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                // A just-opened array has no current element yet.
                if (c.hasCurrentIndex()) {
                    parts.push("[" + c.getCurrentIndex() + "]");
                }
            } else if (c.inObject() && c.getCurrentName() != null) {
                parts.push(field(c.getCurrentName()));
            }
        }
        StringBuilder out = new StringBuilder("$");
        parts.forEach(out::append);
        return out.toString();
    }

    /** {@code .name} for plain names, {@code ['odd name']} otherwise. */
    static String field(String name) {
        if (IDENTIFIER.matcher(name).matches()) {
            return "." + name;
        }
        return "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']";
    }
}
