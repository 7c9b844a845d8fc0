// SPDX-License-Identifier: Apache-2.0
/**
 * The independent plan checker: {@link dev.memplan.validate.PlanValidator} recomputes order,
 * view roots, owners and intervals from the public {@code dev.memplan} API alone and checks a plan
 * against them. It lives in its own package so that the compiler enforces half of that independence (no
 * package-private access to {@code dev.memplan}); {@code ValidatorIndependenceTest} enforces the
 * other half (no {@code dev.memplan.engine} type is named here).
 */
package dev.memplan.validate;
