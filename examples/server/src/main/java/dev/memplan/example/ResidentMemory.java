// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/** The process's resident memory and page faults, from /proc/self (Linux). */
final class ResidentMemory {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path STAT = Path.of("/proc/self/stat");

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
     * {@return the page faults the process took so far that needed no disk (minflt of
     * /proc/self/stat): mostly pages touched for the first time, or -1 where /proc is not there}
     */
    static long minorFaults() {
        try {
            String stat = Files.readString(STAT);
            // the fields after the command's name, which may itself hold spaces and parentheses
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(fields[7]); // field 10 of the whole line: state is field 3
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
