// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's resident memory, from /proc/self/status (Linux). */
final class ResidentMemory {
    private static final Path STATUS = Path.of("/proc/self/status");

    private ResidentMemory() {
    }

    /** {@return VmRSS in bytes, or -1 where /proc is not there} */
    static long bytes() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** Samples {@link #bytes()} on a daemon thread until closed, keeping the highest. */
    static final class PeakSampler implements AutoCloseable {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long peak = bytes();

        PeakSampler(long intervalMillis) {
            thread = new Thread(() -> {
                while (running) {
                    peak = Math.max(peak, bytes());
                    try {
                        Thread.sleep(intervalMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "rss-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        long peak() {
            return Math.max(peak, bytes());
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(1_000);
        }
    }
}
