// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs memplan's calls into ONNX Runtime on a thread of its own with a 16 MB stack. ONNX Runtime
 * 1.29 crashes the JVM (SIGSEGV) when its environment is first created on a thread with Java's
 * default 1 MB stack and the process's command line is long (its telemetry runs a recursive regular
 * expression over the command line); a server's worker thread is such a thread. The caller waits;
 * an interrupt while it waits is kept and set again once the call returns (ORT's calls cannot be
 * cut short).
 */
final class BigStack {
    /** Far above what the crash needs (it overflows a 1 MB stack) and still cheap: only touched pages count. */
    static final long STACK_BYTES = 16L << 20;

    private BigStack() {
    }

    /**
     * {@return what {@code call} returns, run on a fresh thread with a {@value #STACK_BYTES}-byte stack}
     * Its unchecked exceptions and errors reach the caller as they are.
     */
    static <T> T call(String name, Callable<T> call) {
        FutureTask<T> task = new FutureTask<>(call);
        Thread thread = new Thread(null, task, name, STACK_BYTES);
        thread.setDaemon(true);
        thread.start();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException r) {
                        throw r;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
