// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import dev.memplan.onnx.ViewPolicy;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Option values for enums, written and listed in lower case ({@code --engine java}) in help and
 * error messages; parsing ignores case.
 */
final class LowerCaseEnums {
    private LowerCaseEnums() {
    }

    static <E extends Enum<E>> E parse(Class<E> type, String text) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(text.trim())) {
                return e;
            }
        }
        throw new CommandLine.TypeConversionException("expected one of " + names(type) + " but was '" + text + "'");
    }

    static <E extends Enum<E>> String names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT)).toList().toString();
    }

    private static <E extends Enum<E>> Iterator<String> candidates(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT)).iterator();
    }

    static final class Engine implements CommandLine.ITypeConverter<EngineMode>, Iterable<String> {
        @Override
        public EngineMode convert(String text) {
            return parse(EngineMode.class, text);
        }

        @Override
        public Iterator<String> iterator() {
            return candidates(EngineMode.class);
        }
    }

    static final class Format implements CommandLine.ITypeConverter<OutputFormat>, Iterable<String> {
        @Override
        public OutputFormat convert(String text) {
            return parse(OutputFormat.class, text);
        }

        @Override
        public Iterator<String> iterator() {
            return candidates(OutputFormat.class);
        }
    }

    static final class Views implements CommandLine.ITypeConverter<ViewPolicy>, Iterable<String> {
        @Override
        public ViewPolicy convert(String text) {
            return parse(ViewPolicy.class, text);
        }

        @Override
        public Iterator<String> iterator() {
            return candidates(ViewPolicy.class);
        }
    }
}
