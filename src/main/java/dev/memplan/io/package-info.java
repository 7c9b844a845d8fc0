// SPDX-License-Identifier: Apache-2.0
/** Reading input files safely: only regular files, and knowing when a file changed while read. */
package dev.memplan.io;
