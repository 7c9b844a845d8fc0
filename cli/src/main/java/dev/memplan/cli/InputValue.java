// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import picocli.CommandLine;

/**
 * One {@code --value NAME=V[,V...]}: the value of a small integer or bool input of an ONNX model
 * (a sample rate, a flag), given like a constant so that If conditions and sizes that read it
 * resolve. Values are whole numbers >= 0 (a bool is 0 or 1).
 */
record InputValue(String input, long[] values) {

    /** Parses {@code NAME=V[,V...]}; the last {@code =} separates the name from the values. */
    static final class Converter implements CommandLine.ITypeConverter<InputValue> {
        @Override
        public InputValue convert(String text) {
            int eq = text.lastIndexOf('=');
            if (eq <= 0 || eq == text.length() - 1) {
                throw new CommandLine.TypeConversionException("'" + text
                        + "' is not NAME=V; write the input's name, '=' and its value, e.g. sr=16000");
            }
            String input = TerminalText.unescape(text.substring(0, eq));
            String[] parts = text.substring(eq + 1).split(",", -1);
            long[] values = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    values[i] = Long.parseLong(parts[i].trim());
                } catch (NumberFormatException e) {
                    throw new CommandLine.TypeConversionException("'" + parts[i].trim() + "' in '" + text
                            + "' is not a whole number; write e.g. " + input + "=16000 (several elements: 1,2,3)");
                }
                if (values[i] < 0) {
                    throw new CommandLine.TypeConversionException("'" + text + "' gives " + input
                            + " a negative value; memplan tracks input values >= 0 only");
                }
            }
            return new InputValue(input, values);
        }
    }
}
