// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The native engine is preloaded for the subcommands that plan, unless the Java engine is asked for. */
@EngineIndependent
class NativePreloadTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "pack --exact in.csv | true",
        "plan --engine native m.onnx | true",
        "draw m.onnx --engine auto | true",
        "demo | true",
        "pack --engine java in.csv | false",
        "plan m.onnx --engine=JAVA | false",
        "ops | false",
        "symbols m.onnx | false",
        "--version | false",
        "pack --engine | true",
    })
    void preloadsOnlyWhereANativePlanMayFollow(String line, boolean expected) {
        assertEquals(expected, NativePreload.wanted(line.split(" ")), line);
    }

    @org.junit.jupiter.api.Test
    void nothingIsPreloadedForAnEmptyCommandLine() {
        assertEquals(false, NativePreload.wanted(new String[0]));
    }
}
