// SPDX-License-Identifier: Apache-2.0
/**
 * Pictures of activation plans: the time (execution position) against memory (offset in the
 * arena, or slot lane) picture of a plan. One public type, {@link dev.memplan.draw.Picture}, draws
 * the plans it is given as a self-contained interactive HTML page, a static SVG, or a compact text
 * picture for the terminal; its data model and writers stay inside the package.
 */
package dev.memplan.draw;
