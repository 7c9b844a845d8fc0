// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class whose outcome does not depend on which engine {@code -Dmemplan.engine}
 * selects: it reads or writes files, draws, parses arguments, or picks its engines explicitly.
 * Surefire runs such a class once, in the first (native-engine) run; every class without this
 * mark runs in both runs (see the surefire section of pom.xml). When in doubt, leave it off: an
 * unmarked test only costs time, a wrongly marked one loses the Java engine's coverage.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(EngineIndependent.TAG)
public @interface EngineIndependent {
    /** The JUnit tag, named in pom.xml's {@code excludedGroups} of the Java-engine run. */
    String TAG = "engine-independent";
}
