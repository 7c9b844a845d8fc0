// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/** What the JDK's direct buffers hold: tests that check a copy went back without a collection. */
public final class DirectMemory {
    private DirectMemory() {
    }

    /** {@return the bytes of the JVM's direct buffers now, the threads' cached ones among them} */
    public static long bytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("this JVM reports no direct buffer pool");
    }
}
