// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.util.Locale;

/** How {@code memplan plan} prints plans. */
enum OutputFormat {
    /** A short summary per file, for people. */
    TEXT,
    /** One JSON object per file, one per line, for programs. */
    JSON;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
