// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import org.bytedeco.javacpp.Pointer;

/**
 * The C library's heap. glibc keeps memory a program frees in its heap for reuse, and raises the
 * size above which it maps blocks alone each time a mapped block is freed; after ONNX Runtime
 * creates a session, tens of MiB it freed stay resident that way (BGE-small fp32: 29 MiB with ORT's
 * arena, 77 MiB with memplan's counting allocator). memplan gives them back where it knows the
 * process just freed much.
 */
public final class NativeHeap {
    private NativeHeap() {
    }

    /**
     * Gives the heap's free pages back to the system ({@code malloc_trim(0)}, through JavaCPP);
     * nothing happens where the C library has no such call or JavaCPP's library cannot load.
     *
     * @return whether memory was given back
     */
    public static boolean releaseFreePages() {
        try {
            return Pointer.trimMemory();
        } catch (LinkageError | RuntimeException e) { // no JavaCPP library for this platform: nothing to do
            return false;
        }
    }
}
