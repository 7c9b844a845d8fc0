/**
 * Pictures of activation plans: the time (execution position) against memory (offset in the
 * arena, or slot lane) picture of a plan, as a data model ({@link dev.memplan.draw.Picture}, made by
 * {@link dev.memplan.draw.PictureBuilder}), a static SVG ({@link dev.memplan.draw.SvgWriter}), a
 * self-contained interactive HTML page ({@link dev.memplan.draw.HtmlWriter}) and a compact text
 * picture for the terminal ({@link dev.memplan.draw.TextTimeline}).
 */
package dev.memplan.draw;
