// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * In CI the shared models must be there: this fails a CI run without them even where a test that
 * needs them only checks for them itself (outside CI it skips with the same message).
 */
@EngineIndependent
class SharedModelsTest {
    @Test
    void sharedModelsArePresentInCi() {
        SharedModels.requirePresent();
        assertFalse(SharedModels.all().isEmpty(), "no .onnx file under " + SharedModels.dir().toAbsolutePath());
    }
}
