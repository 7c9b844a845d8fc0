// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * One {@code --bind SYM=N}: a symbol and the value it is bound to (>= 0). The symbol is taken as
 * written, spaces included (a model may name a symbol {@code "seq "}); control characters are
 * written as the text output shows them ({@link TerminalText#unescape}: {@code seq\x00=8}).
 */
record Binding(String symbol, long value) {

    /**
     * Parses {@code SYM=N} (the last {@code =} separates them, so a symbol may hold one); a
     * malformed pair or a negative value is a usage error.
     */
    static final class Converter implements CommandLine.ITypeConverter<Binding> {
        @Override
        public Binding convert(String text) {
            int eq = text.lastIndexOf('=');
            if (eq <= 0 || eq == text.length() - 1) {
                throw new CommandLine.TypeConversionException("'" + text
                        + "' is not SYM=N; write the symbol, '=' and a whole number, e.g. seq=128");
            }
            String symbol = TerminalText.unescape(text.substring(0, eq));
            String number = text.substring(eq + 1).trim();
            long value;
            try {
                value = Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + number + "' in '" + text
                        + "' is not a whole number; write e.g. " + symbol + "=128");
            }
            if (value < 0) {
                throw new CommandLine.TypeConversionException("'" + text + "' binds " + symbol
                        + " to a negative number; a dim is >= 0");
            }
            return new Binding(symbol, value);
        }
    }

    /**
     * The bindings in the order given.
     *
     * @throws CommandLine.ParameterException of {@code command} when a symbol is bound twice to
     *                                        different values
     */
    static Map<String, Long> toMap(List<Binding> binds, CommandLine command) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Binding b : binds) {
            Long previous = out.putIfAbsent(b.symbol(), b.value());
            if (previous != null && previous != b.value()) {
                throw new CommandLine.ParameterException(command, "--bind " + b.symbol()
                        + " is given twice, as " + previous + " and " + b.value() + "; bind each symbol once");
            }
        }
        return out;
    }
}
