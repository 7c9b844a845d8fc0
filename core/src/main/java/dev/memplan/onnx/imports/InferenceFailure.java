// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

/**
 * A node whose shape inference failed on what it was given (an absurd attribute, an input of an
 * unexpected rank, or a bug in memplan): its outputs stay uninferred, and this says why, so the
 * failure is visible in the report instead of passing for an unsupported op.
 *
 * @param node    the node, as messages name it ({@code node 3 'name' (Op)}), with the body path
 *                for a node inside a control-flow body
 * @param domain  the node's domain ({@code ""} for the default domain)
 * @param opType  the node's op type
 * @param stage   {@code "shape"} when shape inference failed, {@code "values"} when computing the
 *                output's values from constant inputs failed (the shape is then kept)
 * @param message what went wrong, in words ({@code RuleFailure}: never a Java class name)
 */
public record InferenceFailure(String node, String domain, String opType, String stage, String message) {
}
