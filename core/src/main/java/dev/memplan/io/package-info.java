// SPDX-License-Identifier: Apache-2.0
/**
 * Reading input files safely (only regular files, knowing when a file changed while read) and
 * writing what came from them safely: {@link dev.memplan.io.UnsafeChars}
 * says which characters no output writes raw, {@link dev.memplan.io.TerminalText} escapes terminal
 * text and {@link dev.memplan.io.JsonOutput} makes the JSON writers that escape them.
 */
package dev.memplan.io;
