// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph.Value;
import dev.memplan.validate.PlanValidator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Sizes from shapes: static, bounded, derived dims, every type's width, packing, alignment. */
class SizesTest {

    private static Value value(DataType type, Shape shape) {
        return new Value(0, "t", type, shape, -1);
    }

    private static OptionalLong bytes(DataType type, Shape shape, Map<String, Long> bindings) {
        return value(type, shape).bytesAt(bindings);
    }

    private static long staticBytes(DataType type, Object... dims) {
        return bytes(type, Shape.of(dims), Map.of()).orElseThrow();
    }

    @Test
    void staticShapes() {
        assertEquals(2 * 3 * 4, staticBytes(DataType.FLOAT32, 2, 3));
        assertEquals(8, staticBytes(DataType.FLOAT64), "rank 0 is one element");
        assertEquals(0, staticBytes(DataType.FLOAT32, 5, 0, 7), "a zero dim is an empty tensor");
        assertEquals(OptionalLong.of(1 * 128 * 768 * 2), SizeOracle.staticShapes().bytes(
                value(DataType.FLOAT16, Shape.fixed(1, 128, 768))));
    }

    @Test
    void everyDataTypesWidth() {
        // Bits per element as ONNX defines them, written out by hand.
        Map<DataType, Integer> bits = new EnumMap<>(DataType.class);
        for (DataType t : List.of(DataType.UINT8, DataType.INT8, DataType.BOOL, DataType.FLOAT8E4M3FN,
                DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2, DataType.FLOAT8E5M2FNUZ, DataType.FLOAT8E8M0)) {
            bits.put(t, 8);
        }
        for (DataType t : List.of(DataType.UINT16, DataType.INT16, DataType.FLOAT16, DataType.BFLOAT16)) {
            bits.put(t, 16);
        }
        for (DataType t : List.of(DataType.FLOAT32, DataType.INT32, DataType.UINT32)) {
            bits.put(t, 32);
        }
        for (DataType t : List.of(DataType.FLOAT64, DataType.INT64, DataType.UINT64, DataType.COMPLEX64)) {
            bits.put(t, 64);
        }
        bits.put(DataType.COMPLEX128, 128);
        for (DataType t : List.of(DataType.INT4, DataType.UINT4, DataType.FLOAT4E2M1)) {
            bits.put(t, 4);
        }
        bits.put(DataType.INT2, 2);
        bits.put(DataType.UINT2, 2);
        bits.put(DataType.STRING, 0);
        bits.put(DataType.UNDEFINED, 0);
        assertEquals(DataType.values().length, bits.size(), "every type has an expected width");
        for (DataType t : DataType.values()) {
            assertEquals(bits.get(t), t.bits(), t.toString());
            assertEquals(t, DataType.fromOnnxCode(t.onnxCode()));
            assertEquals(t, DataType.fromName(t.jsonName()));
            if (t.hasFixedWidth()) {
                assertEquals(16L * bits.get(t) / 8, staticBytes(t, 16), "16 elements of " + t);
            }
        }
        assertEquals(DataType.FLOAT32, DataType.fromName("float"));
        assertEquals(DataType.FLOAT64, DataType.fromName("DOUBLE"));
        assertThrows(IllegalArgumentException.class, () -> DataType.fromName("float128"));
    }

    @Test
    void subByteTypesPackRoundingUp() {
        assertEquals(0, staticBytes(DataType.INT4, 0));
        assertEquals(1, staticBytes(DataType.INT4, 1));
        assertEquals(2, staticBytes(DataType.UINT4, 3));
        assertEquals(2, staticBytes(DataType.FLOAT4E2M1, 4));
        assertEquals(3, staticBytes(DataType.INT4, 5));
        assertEquals(1, staticBytes(DataType.INT2, 1));
        assertEquals(1, staticBytes(DataType.UINT2, 4));
        assertEquals(2, staticBytes(DataType.UINT2, 5));
        assertEquals(3, staticBytes(DataType.INT2, 3, 3));
        // ceil((2^63 - 1) * 4 / 8) = 2^62 without overflowing on the way.
        assertEquals(1L << 62, staticBytes(DataType.INT4, Long.MAX_VALUE));
        assertEquals((Long.MAX_VALUE - 1) / 4 + 1, staticBytes(DataType.UINT2, Long.MAX_VALUE));
    }

    @Test
    void stringsAndUndefinedAreUnknown() {
        assertTrue(bytes(DataType.STRING, Shape.of(4), Map.of()).isEmpty());
        assertTrue(bytes(DataType.UNDEFINED, Shape.of(4), Map.of()).isEmpty());
    }

    @Test
    void boundedSymbols() {
        Shape shape = Shape.of("batch", "seq", 64);
        assertEquals(OptionalLong.of(2L * 10 * 64 * 4), bytes(DataType.FLOAT32, shape, Map.of("batch", 2L, "seq", 10L)));
        assertTrue(bytes(DataType.FLOAT32, shape, Map.of("batch", 2L)).isEmpty(), "seq unbound: unknown");
        assertTrue(SizeOracle.staticShapes().bytes(value(DataType.FLOAT32, shape)).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> bytes(DataType.FLOAT32, shape,
                Map.of("batch", -1L, "seq", 1L)));
    }

    /** x(batch, seq) -> h = n0(x) (batch, seq, 4) -> y = n1(h) (batch, seq, 4) output. */
    private static Graph symbolicChain() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of("batch", "seq"));
        int h = b.value("h", DataType.FLOAT32, Shape.of("batch", "seq", 4));
        int y = b.value("y", DataType.FLOAT32, Shape.of("batch", "seq", 4));
        b.input(x);
        b.node("n0", "Expand", new int[] {x}, new int[] {h});
        b.node("n1", "Relu", new int[] {h}, new int[] {y});
        b.output(y);
        return b.build();
    }

    @Test
    void admissionControlIsEmptyNeverZeroWhenASymbolIsUnbound() {
        Graph g = symbolicChain();
        OptionalLong unbound = MemPlan.peakActivationBytesAtBounds(g, ViewMap.empty(), Map.of("batch", 8L),
                PlanOptions.defaults());
        assertTrue(unbound.isEmpty(), "seq unbound: " + unbound);
        Schedule schedule = MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults());
        assertEquals(new PlanResult.Deferred(List.of(1, 2)), schedule.plan(Map.of("batch", 8L)),
                "h and y have no size without seq");
        assertTrue(schedule.peakAtBounds(Map.of()).isEmpty());
        // h and y: 8 * 512 * 4 floats each, both live at n1.
        OptionalLong bound = MemPlan.peakActivationBytesAtBounds(g, ViewMap.empty(),
                Map.of("batch", 8L, "seq", 512L), PlanOptions.defaults());
        assertEquals(OptionalLong.of(2L * 8 * 512 * 4 * 4), bound);
        // A plan at the bounds covers every smaller binding.
        Schedule s = schedule;
        for (long seq = 0; seq <= 512; seq += 37) {
            ActivationPlan p = s.plan(Map.of("batch", 8L, "seq", seq)).orElseThrow();
            PlanValidator.validate(p);
            assertTrue(p.peakBytes() <= bound.getAsLong());
        }
    }

    @Test
    void derivedDimsFoldStaticOperands() {
        Dim seq = Dim.symbol("seq");
        assertEquals(Dim.of(6), Dim.Derived.sum(List.of(Dim.of(2), Dim.of(3)), 1));
        assertEquals(seq, Dim.Derived.sum(List.of(seq, Dim.of(0)), 0));
        assertEquals(Dim.of(24), Dim.Derived.product(List.of(Dim.of(2), Dim.of(3), Dim.of(4))));
        assertEquals(Dim.of(0), Dim.Derived.product(List.of(seq, Dim.of(0))), "times zero is zero");
        assertEquals(seq, Dim.Derived.product(List.of(seq, Dim.of(1))));
        assertEquals(Dim.of(4), Dim.Derived.divide(Dim.of(7), 2, true));
        assertEquals(Dim.of(3), Dim.Derived.divide(Dim.of(7), 2, false));
        assertEquals(seq, Dim.Derived.divide(seq, 1, true));
        assertEquals(Dim.of(9), Dim.Derived.max(List.of(Dim.of(2), Dim.of(9))));
        assertEquals(Dim.of(2), Dim.Derived.min(List.of(Dim.of(2), Dim.of(9))));
        // Nested sums flatten into one sum with one constant.
        Dim nested = Dim.Derived.sum(List.of(Dim.Derived.sum(List.of(seq, Dim.of(3)), 0), Dim.of(4)), 0);
        Dim.Derived flat = assertInstanceOf(Dim.Derived.class, nested);
        assertEquals(Dim.Derived.Op.SUM, flat.op());
        assertEquals(List.of(seq), flat.operands());
        assertEquals(7, flat.constant());
        assertThrows(IllegalArgumentException.class, () -> Dim.Derived.divide(seq, 0, false));
    }

    @Test
    void derivedDimsEvaluate() {
        Dim seq = Dim.symbol("seq");
        Dim batch = Dim.symbol("batch");
        Map<String, Long> at = Map.of("seq", 5L, "batch", 3L);
        assertEquals(OptionalLong.of(12), Dim.Derived.sum(List.of(seq, Dim.of(7)), 0).evaluate(at));
        assertEquals(OptionalLong.of(2), Dim.Derived.sum(List.of(seq), -3).evaluate(at), "conv: seq - kernel + 1");
        assertEquals(OptionalLong.of(30), Dim.Derived.product(List.of(seq, batch, Dim.of(2))).evaluate(at));
        assertEquals(OptionalLong.of(3), Dim.Derived.divide(seq, 2, true).evaluate(at));
        assertEquals(OptionalLong.of(2), Dim.Derived.divide(seq, 2, false).evaluate(at));
        assertEquals(OptionalLong.of(8), Dim.Derived.max(List.of(seq, batch, Dim.of(8))).evaluate(at));
        assertEquals(OptionalLong.of(3), Dim.Derived.min(List.of(seq, batch)).evaluate(at));
        assertTrue(Dim.Derived.sum(List.of(seq, batch), 0).evaluate(Map.of("seq", 1L)).isEmpty(), "batch unbound");
        // Through a shape: (seq + 2) * ceil(seq / 4) int64s at seq = 10: 12 * 3 * 8 bytes.
        Shape shape = Shape.of(Dim.Derived.sum(List.of(seq), 2), Dim.Derived.divide(seq, 4, true));
        assertEquals(OptionalLong.of(12 * 3 * 8), bytes(DataType.INT64, shape, Map.of("seq", 10L)));
    }

    @Test
    void derivedDimsAreMonotone() {
        Dim seq = Dim.symbol("seq");
        Dim batch = Dim.symbol("batch");
        List<Dim> dims = List.of(
                Dim.Derived.sum(List.of(seq, batch), -2),
                Dim.Derived.product(List.of(seq, batch, Dim.of(3))),
                Dim.Derived.divide(Dim.Derived.sum(List.of(seq), 1), 3, false),
                Dim.Derived.divide(seq, 3, true),
                Dim.Derived.max(List.of(seq, Dim.of(7))),
                Dim.Derived.min(List.of(Dim.Derived.product(List.of(seq, Dim.of(2))), batch)));
        for (Dim d : dims) {
            long previous = Long.MIN_VALUE;
            for (long s = 2; s <= 40; s++) {
                long now = d.evaluate(Map.of("seq", s, "batch", 4L)).orElseThrow();
                assertTrue(now >= previous, d + " decreased at seq = " + s);
                previous = now;
            }
        }
    }

    @Test
    void alignmentRoundsEveryOwnerUp() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.UINT8, Shape.of(3));
        int a = b.value("a", DataType.UINT8, Shape.of(24));
        int z = b.value("z", DataType.UINT8, Shape.of(0));
        int c = b.value("c", DataType.UINT8, Shape.of(64));
        b.input(x);
        b.node("n0", "Op", new int[] {x}, new int[] {a, z});
        b.node("n1", "Op", new int[] {a}, new int[] {c});
        b.output(c, z);
        PlanOptions options = PlanOptions.defaults().withAlignment(64).withIncludeGraphInputs(true);
        ActivationPlan p = MemPlan.plan(b.build(), ViewMap.empty(), SizeOracle.staticShapes(), options).orElseThrow();
        PlanValidator.validate(p);
        assertEquals(64, p.sizeOf(x), "3 -> 64");
        assertEquals(64, p.sizeOf(a), "24 -> 64");
        assertEquals(0, p.sizeOf(z), "0 stays 0");
        assertEquals(64, p.sizeOf(c), "64 stays 64");
        assertEquals(192, p.naiveBytes());
    }
}
