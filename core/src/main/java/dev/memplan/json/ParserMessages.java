// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import java.util.regex.Pattern;

/**
 * Jackson's reason for refusing a JSON text, in words a user can act on: its messages name its
 * own settings and classes ("from `StreamReadConstraints.getMaxStringLength()`", "enable
 * `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS`", "Feature 'ALLOW_COMMENTS'"), which a user of
 * memplan cannot change. The location is said by the caller (line, column, JSON path).
 */
final class ParserMessages {
    /** ", from `StreamReadConstraints.getMaxStringLength()`": which limit, by its getter. */
    private static final Pattern FROM_LIMIT = Pattern.compile(",? *from `[^`]*`");
    /** "maybe a (non-standard) comment? (not recognized as one since Feature 'X' not enabled for parser)". */
    private static final Pattern COMMENT = Pattern.compile("maybe a \\(non-standard\\) comment\\? \\(not recognized.*?parser\\)");
    /** ": enable `JsonReadFeature.X` to allow", "(enable `X` ...)" and any other quoted setting or class. */
    private static final Pattern ENABLE = Pattern.compile(":? *\\(?(?:enable|use) `[^`]*`[^)]*\\)?");
    private static final Pattern QUOTED_NAME = Pattern.compile("`[A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z0-9_$()]+)+`");
    private static final Pattern QUALIFIED = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.){2,}[A-Za-z_$][A-Za-z0-9_$]*");
    private static final Pattern FEATURE = Pattern.compile("Feature '[A-Z_]+'");

    private ParserMessages() {
    }

    /** {@code message} (Jackson's original message) without library names. */
    static String plain(String message) {
        if (message == null || message.isBlank()) {
            return "the text is not valid JSON";
        }
        String m = FROM_LIMIT.matcher(message).replaceAll("");
        m = COMMENT.matcher(m).replaceAll("comments are not part of JSON");
        m = ENABLE.matcher(m).replaceAll(" (not valid JSON)");
        m = QUOTED_NAME.matcher(m).replaceAll("a setting");
        m = QUALIFIED.matcher(m).replaceAll("a value");
        m = FEATURE.matcher(m).replaceAll("an option");
        return m.strip();
    }
}
