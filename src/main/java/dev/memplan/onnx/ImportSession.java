// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.Set;

/**
 * What every graph of one model import shares, the main graph and all bodies: the options, the
 * default-domain opset, the symbol table, and the names of symbols graph inputs declare (a
 * declared dim naming one of those is the caller's, never an exporter's placeholder).
 */
record ImportSession(ImportOptions options, long opset, SymbolTable symbols, Set<String> inputSymbolNames) {
}
