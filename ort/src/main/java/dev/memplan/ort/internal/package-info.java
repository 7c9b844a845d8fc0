// SPDX-License-Identifier: Apache-2.0
/**
 * A replay of ONNX Runtime 1.30's CPU arena (internal, not exported): predicts the bytes
 * {@code ort-arena.py} reports as {@code activation} for a request, without running ONNX Runtime.
 *
 * <p>The pieces follow docs/ort-runtime.md, one class each: {@link dev.memplan.ort.internal.OrtExecutionOrder}
 * (ORT's reverse-DFS order), {@link dev.memplan.ort.internal.OrtReusePlan} (its allocation planner: aliases,
 * in-place kernels, the exact-shape freelist, decided once per graph), {@link dev.memplan.ort.internal.MemoryPattern}
 * (the second run's block), {@link dev.memplan.ort.internal.BfcArena} (bins, whole chunks, power-of-two
 * regions) and {@link dev.memplan.ort.internal.KernelWorkspaces}; {@link dev.memplan.ort.internal.OrtArenaPredictor}
 * runs them for a request. It is a port of {@code benchmarks/ort/replay-check.py} and
 * {@code replay-model.py}. {@code OrtArenaRandomGraphsTest}, {@code OrtArenaSharedModelsTest} and
 * {@code OrtArenaLevelAllTest} hold it to ORT's own figures, checked in under
 * {@code src/test/resources/ort/}.
 */
package dev.memplan.ort.internal;
