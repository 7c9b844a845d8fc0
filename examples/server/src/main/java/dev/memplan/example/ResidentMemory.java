// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

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

    /**
     * Samples {@link #bytes()}, and another figure with it, on a daemon thread until closed,
     * keeping the highest of each.
     */
    static final class PeakSampler implements AutoCloseable {
        private final Thread thread;
        private final LongSupplier other;
        private volatile boolean running = true;
        private volatile long peak = bytes();
        private volatile long peakOther;

        PeakSampler(long intervalMillis, LongSupplier other) {
            this.other = other;
            this.peakOther = other.getAsLong();
            thread = new Thread(() -> {
                while (running) {
                    peak = Math.max(peak, bytes());
                    peakOther = Math.max(peakOther, other.getAsLong());
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

        long peakOther() {
            return Math.max(peakOther, other.getAsLong());
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(1_000);
        }
    }
}
