// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.Shape;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.ActivationPlan;
import dev.memplan.testing.EngineIndependent;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Checks the SVG independently of how it was written: it is well-formed XML, has one rectangle per
 * owner, each at the coordinates its interval and offset give, and rectangles of owners live at
 * one same position never overlap.
 */
@EngineIndependent
class SvgWriterTest {
    /** Coordinates are written with three decimals. */
    private static final double EPS = 0.002;

    static Stream<Arguments> cases() {
        return LongStream.rangeClosed(1, 40).boxed()
                .flatMap(seed -> Stream.of(Arguments.of(seed, Strategy.OFFSETS), Arguments.of(seed, Strategy.SLOTS)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("cases")
    void rectanglesMatchThePlanAndNeverOverlap(long seed, Strategy strategy) throws Exception {
        PictureData picture = Pictures.ofSeed(seed, strategy);
        Layout layout = picture.layouts().get(0);
        List<Rect> rects = ownerRects(parse(SvgWriter.write(picture, layout.name())));
        assertEquals(picture.owners().size(), rects.size(), "one rectangle per owner");
        assertMatchesPlan(picture, layout, rects);
        assertEquals(List.of(), overlaps(picture, rects), "rectangles of owners live together overlap");
    }

    @Test
    void aCorruptedLayoutIsCaughtByTheOverlapCheck() throws Exception {
        // the check must be able to fail: put every owner at offset 0; every seed with two non-empty
        // owners live together must then show an overlap
        int seedsWithLivePairs = 0;
        for (long seed = 1; seed <= 20; seed++) {
            PictureData picture = Pictures.ofSeed(seed, Strategy.OFFSETS);
            if (!hasLivePair(picture)) {
                continue;
            }
            seedsWithLivePairs++;
            Layout real = picture.layouts().get(0);
            Layout corrupt = new Layout(Strategy.OFFSETS, real.peakBytes(), new long[real.offsets().length], null,
                    new long[0]);
            PictureData bad = new PictureData(picture.title(), picture.bindings(), picture.engine(), picture.nodeNames(),
                    picture.nodeOps(), picture.owners(), List.of(corrupt), picture.naiveBytes(),
                    picture.lowerBoundBytes(), picture.boundPosition(), picture.liveBytes(), List.of());
            List<Rect> rects = ownerRects(parse(SvgWriter.write(bad, "offsets")));
            assertFalse(overlaps(bad, rects).isEmpty(), "seed " + seed + ": all at offset 0 must overlap");
        }
        assertTrue(seedsWithLivePairs > 5, "the seeds must hold live pairs to corrupt");
    }

    private static boolean hasLivePair(PictureData p) {
        List<DrawnOwner> o = p.owners();
        for (int i = 0; i < o.size(); i++) {
            for (int j = i + 1; j < o.size(); j++) {
                if (o.get(i).bytes() > 0 && o.get(j).bytes() > 0 && o.get(i).liveWith(o.get(j))) {
                    return true;
                }
            }
        }
        return false;
    }

    @Test
    void theLiveCurveAndFiguresFollowThePlan() throws Exception {
        PictureData picture = Pictures.ofSeed(3, Strategy.OFFSETS, Strategy.SLOTS);
        long max = 0;
        for (long b : picture.liveBytes()) {
            max = Math.max(max, b);
        }
        assertEquals(picture.lowerBoundBytes(), max, "the lower bound is the most bytes live at one position");
        assertEquals(max, picture.liveBytes()[picture.boundPosition()]);
        Document doc = parse(SvgWriter.write(picture, "slots"));
        assertEquals(1, doc.getElementsByTagName("polyline").getLength(), "one live-bytes curve");
        Element arena = (Element) doc.getElementsByTagName("g").item(1);
        assertEquals("slots", arena.getAttribute("data-layout"));
        assertEquals(picture.layout("slots").orElseThrow().slotCapacities().length,
                countByClass(doc, "line", "lane"), "one lane line per slot");
        assertThrows(IllegalArgumentException.class, () -> SvgWriter.write(Pictures.ofSeed(3, Strategy.SLOTS), "offsets"));
    }

    @Test
    void hostileNamesStayWellFormedAndReadable() throws Exception {
        String[] names = {"</script><script>alert(1)</script>", "a\"b'c&d<e>", "ctl\u0001\u001b[31m\u0007",
            "]]><!--", "bidi\u202eevil", "lone\ud800surrogate", "tab\tnew\nline"};
        Graph.Builder b = Graph.builder();
        int prev = b.value("in", DataType.FLOAT32, Shape.fixed(4));
        b.input(prev);
        for (int i = 0; i < names.length; i++) {
            int v = b.value(names[i], DataType.FLOAT32, Shape.fixed(4 + i));
            b.node("n<" + i + ">&", "Op\"" + (i % 2), new int[] {prev}, new int[] {v});
            prev = v;
        }
        b.output(prev);
        ActivationPlan plan = MemPlan.compile(b.build(), ViewMap.empty(), Pictures.options(Strategy.OFFSETS))
                .plan(Map.of()).orElseThrow();
        Pictures.validate(plan);
        PictureData picture = PictureBuilder.of("<model & \"title\">", Map.of(), List.of(plan));
        Document doc = parse(SvgWriter.write(picture, "offsets"));
        NodeList titles = doc.getElementsByTagName("title");
        assertEquals(names.length, titles.getLength());
        assertTrue(titles.item(0).getTextContent().startsWith(names[0]), "markup in a name is shown as text");
        assertTrue(titles.item(1).getTextContent().startsWith(names[1]));
        assertTrue(titles.item(2).getTextContent().startsWith("ctl\\u0001\\u001b[31m\\u0007"));
        assertTrue(titles.item(4).getTextContent().startsWith("bidi\\u202eevil"));
        assertTrue(titles.item(5).getTextContent().startsWith("lone\\ud800surrogate"));
    }

    // ---- independent reading of the SVG ----

    /** One owner rectangle as written. */
    record Rect(int value, int def, int end, long offset, long bytes, double x, double y, double w, double h) {
    }

    static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        DocumentBuilder builder = f.newDocumentBuilder();
        builder.setErrorHandler(null);
        return builder.parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    static List<Rect> ownerRects(Document doc) {
        List<Rect> out = new ArrayList<>();
        NodeList all = doc.getElementsByTagName("rect");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (!e.getAttribute("class").equals("owner")) {
                continue;
            }
            out.add(new Rect(Integer.parseInt(e.getAttribute("data-value")), Integer.parseInt(e.getAttribute("data-def")),
                    Integer.parseInt(e.getAttribute("data-end")), Long.parseLong(e.getAttribute("data-offset")),
                    Long.parseLong(e.getAttribute("data-bytes")), d(e, "x"), d(e, "y"), d(e, "width"), d(e, "height")));
        }
        return out;
    }

    private static int countByClass(Document doc, String tag, String cls) {
        NodeList all = doc.getElementsByTagName(tag);
        int n = 0;
        for (int i = 0; i < all.getLength(); i++) {
            if (((Element) all.item(i)).getAttribute("class").equals(cls)) {
                n++;
            }
        }
        return n;
    }

    private static double d(Element e, String attr) {
        return Double.parseDouble(e.getAttribute(attr));
    }

    /** Each rectangle is where the plan says, in the arena group's geometry. */
    private static void assertMatchesPlan(PictureData picture, Layout layout, List<Rect> rects) throws Exception {
        Document doc = parse(SvgWriter.write(picture, layout.name()));
        Element arena = null;
        NodeList groups = doc.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("id").equals("arena")) {
                arena = g;
            }
        }
        assertTrue(arena != null, "the arena group is there");
        double left = d(arena, "data-left");
        double top = d(arena, "data-top");
        double width = d(arena, "data-width");
        double height = d(arena, "data-height");
        assertEquals(layout.peakBytes(), Long.parseLong(arena.getAttribute("data-peak")));
        assertEquals(picture.positions(), Integer.parseInt(arena.getAttribute("data-positions")));
        double xs = width / picture.positions();
        double ys = layout.peakBytes() == 0 ? 0 : height / layout.peakBytes();
        for (int i = 0; i < rects.size(); i++) {
            Rect r = rects.get(i);
            DrawnOwner o = picture.owners().get(i);
            String at = "owner " + o.name();
            assertEquals(o.valueId(), r.value(), at);
            assertEquals(o.def(), r.def(), at);
            assertEquals(o.useEnd(), r.end(), at);
            assertEquals(layout.offsets()[i], r.offset(), at);
            assertEquals(o.bytes(), r.bytes(), at);
            assertEquals(left + o.def() * xs, r.x(), EPS, at + " x");
            assertEquals((o.useEnd() - o.def() + 1) * xs, r.w(), EPS, at + " width");
            assertEquals(top + height - (layout.offsets()[i] + o.bytes()) * ys, r.y(), EPS, at + " y");
            assertEquals(o.bytes() * ys, r.h(), EPS, at + " height");
            assertTrue(r.y() >= top - EPS && r.y() + r.h() <= top + height + EPS, at + " inside the arena");
        }
    }

    /** Pairs of owners live at one position whose rectangles share area (beyond rounding). */
    private static List<String> overlaps(PictureData picture, List<Rect> rects) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rects.size(); i++) {
            for (int j = i + 1; j < rects.size(); j++) {
                if (!picture.owners().get(i).liveWith(picture.owners().get(j))) {
                    continue;
                }
                Rect a = rects.get(i);
                Rect b = rects.get(j);
                double dy = Math.min(a.y() + a.h(), b.y() + b.h()) - Math.max(a.y(), b.y());
                double dx = Math.min(a.x() + a.w(), b.x() + b.w()) - Math.max(a.x(), b.x());
                if (dy > 2 * EPS && dx > 2 * EPS) {
                    out.add(picture.owners().get(i).name() + " / " + picture.owners().get(j).name());
                }
            }
        }
        return out;
    }
}
