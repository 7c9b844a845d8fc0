// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The one JSON escape of every JSON memplan writes (plans, graph files, ONNX reports, symbols,
 * the page's data): besides what JSON itself requires ({@code "}, {@code \}, C0 controls), every
 * character of {@link UnsafeChars} (DEL, C1 controls, bidi overrides and isolates, invisible
 * characters, line separators) and every surrogate is written as {@code \}{@code uXXXX}. The text
 * means the same to any JSON reader; printed raw to a terminal it cannot recolour it, forge a line
 * or reorder what it shows, and it is valid UTF-8 even for a name with an unpaired surrogate.
 * Characters outside the Basic Multilingual Plane (emoji) are written as escaped surrogate pairs.
 */
public final class JsonOutput {
    /** The factory every JSON writer of memplan creates its generators with. */
    public static final JsonFactory FACTORY = new JsonFactoryBuilder().characterEscapes(new SafeEscapes()).build();

    private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

    private JsonOutput() {
    }

    /**
     * {@return a mapper that writes through {@link #FACTORY}; shared, do not reconfigure}
     */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Jackson's custom escapes: the unsafe characters, each as {@code \}{@code uXXXX}. */
    private static final class SafeEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii = standardAsciiEscapesForJSON();

        SafeEscapes() {
            for (int c = 0; c < ascii.length; c++) {
                if (UnsafeChars.isUnsafe((char) c) && ascii[c] == ESCAPE_NONE) {
                    ascii[c] = ESCAPE_STANDARD; // DEL: the C0 controls are escaped already
                }
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            if (UnsafeChars.isUnsafe((char) ch) || Character.isSurrogate((char) ch)) {
                return new SerializedString(String.format("\\u%04X", ch));
            }
            return null;
        }
    }
}
