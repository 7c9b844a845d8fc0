// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.symbols.SymCondition;
import dev.memplan.onnx.symbols.SymbolTable;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What every graph of one model import shares, the main graph and all bodies: the options, the
 * default-domain opset, the symbol table, and the names of symbols graph inputs declare (a
 * declared dim naming one of those is the caller's, never an exporter's placeholder); the value
 * symbols of small integer inputs; which If nodes a specialization decided ({@code decisions}, by
 * node label: true for then_branch); the If conditions left open, by node label; and the main
 * graph's input dims given in place of the declared ones.
 */
record ImportSession(ImportOptions options, long opset, SymbolTable symbols, Set<String> inputSymbolNames,
                     Map<String, List<String>> valueSymbols, Map<String, Boolean> decisions,
                     Map<String, SymCondition> openConditions, InputDimOverrides inputDims) {
}
