// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

/**
 * The characters no output of memplan writes as they are, whatever its kind (terminal text, JSON,
 * HTML or SVG): each output escapes them in its own syntax ({@link TerminalText}, the JSON writers'
 * escapes, the pictures' markup escape). They could move a terminal's cursor or change its
 * colours, reorder the text around them, or hide in it: C0 and C1 controls and DEL; the Arabic
 * letter mark; zero-width spaces and joiners and the left-to-right and right-to-left marks
 * (U+200B to U+200F); the line and paragraph separators and the bidi embeddings and overrides
 * (U+2028 to U+202E); the word joiner, invisible operators and bidi isolates (U+2060 to U+2069);
 * the zero-width no-break space (U+FEFF); and surrogates that are not half of a pair (no character
 * at all; UTF-8 cannot encode them).
 */
public final class UnsafeChars {
    private UnsafeChars() {
    }

    /**
     * Whether {@code c} is escaped wherever it stands; a surrogate needs its neighbour to decide
     * ({@link #isUnsafeAt}).
     *
     * @param c a character
     * @return true for the controls and invisible characters listed above
     */
    public static boolean isUnsafe(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f)
                || c == '\u061c'                               // Arabic letter mark
                || (c >= '\u200b' && c <= '\u200f')            // zero-width space, joiners, LRM, RLM
                || (c >= '\u2028' && c <= '\u202e')            // separators, bidi embeddings and overrides
                || (c >= '\u2060' && c <= '\u2069')            // word joiner, invisible operators, isolates
                || c == '\ufeff';                              // zero-width no-break space (BOM)
    }

    /**
     * Whether the character at {@code i} of {@code s} is escaped: one of {@link #isUnsafe(char)}, or
     * a surrogate without its other half.
     *
     * @param s any text
     * @param i an index into it
     * @return true when the character there must be escaped
     */
    public static boolean isUnsafeAt(CharSequence s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return isUnsafe(c);
    }
}
