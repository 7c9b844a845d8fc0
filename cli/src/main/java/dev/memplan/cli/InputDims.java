// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import dev.memplan.onnx.ImportOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * One {@code --input-dims NAME=D0,D1,...}: the dims an ONNX model's input takes in place of the
 * declared ones, each a whole number, {@code ?} (unnamed) or a symbol name. For exports that named
 * a dim wrong, such as {@code input_ids [batch, batch]}: {@code --input-dims input_ids=batch,seq}.
 * Names are written as the text output shows them ({@link TerminalText#unescape}).
 */
record InputDims(String input, List<String> dims) {

    /** Parses {@code NAME=D0,D1,...}; the last {@code =} separates the name from the dims. */
    static final class Converter implements CommandLine.ITypeConverter<InputDims> {
        @Override
        public InputDims convert(String text) {
            int eq = text.lastIndexOf('=');
            if (eq <= 0 || eq == text.length() - 1) {
                throw new CommandLine.TypeConversionException("'" + text + "' is not NAME=D0,D1,...; write the"
                        + " input's name, '=' and its dims, e.g. input_ids=batch,seq");
            }
            String input = TerminalText.unescape(text.substring(0, eq));
            List<String> dims = new ArrayList<>();
            for (String part : text.substring(eq + 1).split(",", -1)) {
                String dim = TerminalText.unescape(part.trim());
                if (dim.isEmpty()) {
                    throw new CommandLine.TypeConversionException("'" + text + "' has an empty dim; give each dim"
                            + " of " + input + " as a whole number, ? or a symbol name, e.g. " + input + "=batch,seq");
                }
                if (dim.startsWith("-") && ImportOptions.isExtent(dim.substring(1))) {
                    throw new CommandLine.TypeConversionException("'" + text + "' gives " + input + " the dim " + dim
                            + "; a fixed extent is >= 0 (write ? for a dim of unknown size)");
                }
                if (ImportOptions.isExtent(dim) && dim.length() > 18) {
                    throw new CommandLine.TypeConversionException("'" + text + "' gives " + input + " the dim " + dim
                            + ", too large for a dim; give a smaller whole number or a symbol name");
                }
                dims.add(dim);
            }
            return new InputDims(input, List.copyOf(dims));
        }
    }

    /**
     * The dims by input, in the order given.
     *
     * @throws CommandLine.ParameterException of {@code command} when an input is given twice with
     *                                        different dims
     */
    static Map<String, List<String>> toMap(List<InputDims> given, CommandLine command) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (InputDims d : given) {
            List<String> previous = out.putIfAbsent(d.input(), d.dims());
            if (previous != null && !previous.equals(d.dims())) {
                throw new CommandLine.ParameterException(command, "--input-dims " + d.input() + " is given twice, as "
                        + String.join(",", previous) + " and " + String.join(",", d.dims()) + "; give each input once");
            }
        }
        return out;
    }
}
